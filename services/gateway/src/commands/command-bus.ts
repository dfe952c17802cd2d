import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule, type Command, type ICommandHandler } from '@nestjs/cqrs';

/**
 * The gateway's commands go through a @nestjs/cqrs CommandBus (docs/decisions.md, "Commands go
 * through the @nestjs/cqrs CommandBus"): a route validates its input, builds a command and executes it here; the command's
 * handler does the work in its own transaction. The bus lives in a Nest application context of its
 * own: just CqrsModule and the handlers, no HTTP (Express stays the gateway's edge). Handlers are
 * built by the caller from our own dependencies and given to Nest as factory providers, so Nest
 * needs no constructor metadata (emitDecoratorMetadata) and no decorators are compiled; each
 * handler class is registered with `CommandHandler(Command)(Handler)` beside it. The context holds
 * no connections or timers, so it needs no closing. It is built on first use (about 15 ms) and
 * shared afterwards.
 */
export class GatewayCommandBus {
  private bus: Promise<CommandBus> | undefined;

  constructor(private readonly handlers: readonly ICommandHandler[]) {}

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
        // A factory provider (not useValue): the bus finds a factory's handler by its instance's class.
        providers: this.handlers.map((handler) => ({
          provide: handler.constructor,
          useFactory: () => handler,
        })),
      },
      // Errors reach the caller instead of ending the process; Nest's own logger stays quiet.
      { logger: false, abortOnError: false },
    );
    return context.get(CommandBus);
  }
}
