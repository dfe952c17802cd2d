import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const MODERATION_TERM_KINDS = ['block', 'allow'] as const;
export type ModerationTermKind = (typeof MODERATION_TERM_KINDS)[number];

/**
 * A keyword-moderation term added by an admin: a term to block beside the built-in lists, or an
 * allowed phrase that clears the blocked terms it contains. Rows are never updated: a change is a
 * delete and an insert, so the set of ids tells every gateway whether its copy is current.
 */
export const ModerationTerm = defineEntity({
  name: 'ModerationTerm',
  tableName: 'moderation_terms',
  properties: {
    id: p.uuid().primary(),
    /** As the admin wrote it. */
    term: p.string().length(200),
    /**
     * The gateway's normalised form at creation, only to refuse duplicates: `Ｆｕｃｋ` and `fuck` are
     * one term. Matching normalises `term` again, so a better normaliser needs no data migration.
     */
    normalised: p.text(),
    kind: p.enum(MODERATION_TERM_KINDS),
    /** Language code; null applies the term to every language. */
    language: p.string().length(35).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'moderation_terms_kind_normalised_unique', properties: ['kind', 'normalised'] }],
});
export type ModerationTerm = InferEntity<typeof ModerationTerm>;
