import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule, type Command } from '@nestjs/cqrs';

import { ReportContentChangeHandler, type ReportChangeDeps } from './report-change/report-change.handler.js';

/**
 * The content commands' @nestjs/cqrs CommandBus, in a Nest application context of its own: just
 * CqrsModule and the handlers, no HTTP (Express stays the gateway's edge). Handlers are factory
 * providers built from our own dependencies, so Nest needs no constructor metadata
 * (emitDecoratorMetadata) and no decorators are compiled. The context holds no connections or
 * timers, so it needs no closing. It is built on first use (about 15 ms) and shared afterwards.
 */
export class ContentCommandBus {
  private bus: Promise<CommandBus> | undefined;

  constructor(private readonly deps: ReportChangeDeps) {}

  async execute<R>(command: Command<R>): Promise<R> {
    this.bus ??= this.create().catch((err: unknown) => {
      this.bus = undefined;
      throw err;
    });
    return (await this.bus).execute(command);
  }

  private async create(): Promise<CommandBus> {
    const context = await NestFactory.createApplicationContext(
      {
        imports: [CqrsModule.forRoot()],
        providers: [
          {
            provide: ReportContentChangeHandler,
            useFactory: () => new ReportContentChangeHandler(this.deps),
          },
        ],
      },
      // Errors reach the caller instead of ending the process; Nest's own logger stays quiet.
      { logger: false, abortOnError: false },
    );
    return context.get(CommandBus);
  }
}
