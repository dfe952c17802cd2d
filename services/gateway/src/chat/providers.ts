import { AppError } from '@tp/runtime';

import type { Provider } from './chat-config.js';

/** One place a request can go: a provider and the model name it knows. */
export interface Target {
  readonly provider: Provider;
  readonly model: string;
}

export interface ModelEntry {
  readonly id: string;
  readonly owned_by: string;
}

/**
 * Which providers serve which model, and in what order they are tried. A requested model is first
 * looked up as an alias; each alias entry (or the model itself) is `provider/model` for one provider,
 * or a bare model for every provider that lists it, in configuration order.
 */
export class ProviderRegistry {
  /** A map, not the parsed object: a model named `toString` or `__proto__` is no alias. */
  private readonly aliases: ReadonlyMap<string, string | readonly string[]>;

  constructor(
    readonly providers: readonly Provider[],
    aliases: Readonly<Record<string, string | readonly string[]>>,
  ) {
    this.aliases = new Map(Object.entries(aliases));
  }

  /** The targets for `model`, in fallback order; 503 with no providers, 404 for an unknown model. */
  targets(model: string): Target[] {
    if (this.providers.length === 0) {
      throw new AppError(
        'CHAT_UNAVAILABLE',
        'no chat provider is configured on this gateway; an operator sets CHAT_PROVIDERS',
      );
    }
    const targets = this.resolve(model, true);
    if (targets.length === 0) {
      throw new AppError(
        'MODEL_NOT_FOUND',
        `The model \`${model}\` does not exist or you do not have access to it.`,
      );
    }
    return targets;
  }

  /** Every model a client can ask for: the providers' models, then the aliases. */
  models(): ModelEntry[] {
    const entries = new Map<string, ModelEntry>();
    for (const provider of this.providers) {
      for (const id of provider.models)
        if (!entries.has(id)) entries.set(id, { id, owned_by: provider.name });
    }
    for (const id of this.aliases.keys()) {
      if (!entries.has(id) && this.resolve(id).length > 0) entries.set(id, { id, owned_by: 'alias' });
    }
    return [...entries.values()];
  }

  /**
   * The targets for `model` (an alias or a model), deduplicated, in order; none when unknown. A client's
   * own `provider/model` must name a model that provider lists (or one of the aliases' targets there):
   * it cannot send any string to a provider. Alias entries are the operator's and are taken as written.
   */
  private resolve(model: string, fromClient = false): Target[] {
    const alias = this.aliases.get(model);
    if (alias === undefined && fromClient) return this.expand(model).filter((t) => this.offered(t));
    const entries = alias === undefined ? [model] : typeof alias === 'string' ? [alias] : alias;
    const seen = new Set<string>();
    const targets: Target[] = [];
    for (const entry of entries) {
      for (const target of this.expand(entry)) {
        const key = `${target.provider.name}\u0000${target.model}`;
        if (seen.has(key)) continue;
        seen.add(key);
        targets.push(target);
      }
    }
    return targets;
  }

  /** Whether a target is listed by its provider, or reached through an alias. */
  private offered(target: Target): boolean {
    if (target.provider.models.includes(target.model)) return true;
    return [...this.aliases.keys()].some((alias) =>
      this.resolve(alias).some((t) => t.provider === target.provider && t.model === target.model),
    );
  }

  private expand(entry: string): Target[] {
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const named = this.providers.find((p) => p.name === entry.slice(0, slash));
      if (named) return [{ provider: named, model: entry.slice(slash + 1) }];
    }
    return this.providers
      .filter((p) => p.models.includes(entry))
      .map((provider) => ({ provider, model: entry }));
  }
}
