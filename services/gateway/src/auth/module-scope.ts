import { entitySegment } from '@tp/pipeline';
import { AppError } from '@tp/runtime';
import { z } from 'zod';

import type { Principal } from './api-key.store.js';

/** Most modules one key may be scoped to: a scope is a short list, and it travels with every lookup. */
export const MAX_KEY_MODULES = 50;

/**
 * The modules of a scoped key: each written as the content routes' `:module`, 1 to MAX_KEY_MODULES,
 * duplicates once, sorted (so a list shows the same scope the same way however it was typed).
 */
export const keyModules = z
  .array(entitySegment)
  .min(1, { message: 'at least one module' })
  .max(MAX_KEY_MODULES, { message: `at most ${MAX_KEY_MODULES} modules` })
  .transform((modules) => [...new Set(modules)].sort());

/** True when the key may see entities of `module`: an unscoped key may see every module. */
export function inScope(principal: Principal | undefined, module: string): boolean {
  return principal?.modules === undefined || principal.modules.includes(module);
}

/** A scoped key naming a module outside its scope (in a path it chose) is refused, 403. */
export function assertInScope(principal: Principal | undefined, module: string): void {
  if (inScope(principal, module)) return;
  throw new AppError('MODULE_NOT_ALLOWED', `this API key may not use module ${JSON.stringify(module)}`, {
    module,
  });
}
