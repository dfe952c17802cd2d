import { Command } from '@nestjs/cqrs';

/** Human translations of some fields of one entity into one language, as an editor wrote them. */
export interface TranslationEdit {
  readonly module: string;
  readonly entityType: string;
  readonly entityId: string;
  /** A code of the language list. */
  readonly targetLang: string;
  /** Field name -> translated text. */
  readonly fields: ReadonlyMap<string, string>;
  /** The API key that wrote them. */
  readonly keyId: string | null;
}

export interface TranslationEdited {
  /** The source version the translations were stored for (the entity's current one). */
  readonly sourceVersion: number;
  readonly fields: readonly string[];
}

/** An editor corrects translations: stored as human ones, which machine results do not replace. */
export class EditTranslationCommand extends Command<TranslationEdited> {
  constructor(readonly edit: TranslationEdit) {
    super();
  }
}
