// Typed loosely: the package's declarations use extensionless imports that NodeNext cannot follow.
import type { Tokenizer } from '@huggingface/tokenizers';

/** One (premise, hypothesis) pair as the model reads it. */
export interface EncodedPair {
  readonly ids: readonly number[];
  readonly typeIds: readonly number[];
}

/** The hypothesis alone (template and label) leaves no room for the text. */
export class HypothesisTooLongError extends Error {
  override readonly name = 'HypothesisTooLongError';
  constructor(
    readonly hypothesis: string,
    readonly tokens: number,
    readonly maxLength: number,
  ) {
    super(
      `the hypothesis "${hypothesis}" is ${tokens} tokens; with the text the model reads at most ${maxLength}`,
    );
  }
}

/**
 * Builds model inputs for (premise, hypothesis) pairs with the model's own pair template (mDeBERTa and
 * BERT: `[CLS] premise [SEP] hypothesis [SEP]`). `@huggingface/tokenizers` neither truncates nor pads,
 * so this does both: only the premise is cut, from its end, until the pair fits (the Hugging Face
 * zero-shot pipeline's `only_first`), so every label is judged against the same hypothesis wording.
 * Special tokens spelled in the text (`[SEP]`) are dropped, so a text cannot end its own segment.
 */
export class PairEncoder {
  private readonly special: ReadonlySet<string>;
  private readonly addedIds: ReadonlyMap<string, number>;
  /** Special tokens the template adds to a pair. */
  private readonly pairOverhead: number;

  constructor(
    private readonly tokenizer: Tokenizer,
    readonly maxLength: number,
  ) {
    const added: { content: string; id: number; special: boolean }[] = [
      ...tokenizer.get_added_tokens_decoder().values(),
    ];
    this.special = new Set(added.filter((token) => token.special).map((token) => token.content));
    this.addedIds = new Map(added.map((token) => [token.content, token.id]));
    this.pairOverhead = this.template([], []).tokens.length;
  }

  /** The text's tokens, without specials: tokenize the premise once and pair it with every hypothesis. */
  tokens(text: string): string[] {
    const tokens: string[] = this.tokenizer.tokenize(text, { add_special_tokens: false });
    return tokens.filter((token) => !this.special.has(token));
  }

  pair(premiseTokens: readonly string[], hypothesis: string): EncodedPair {
    const hypothesisTokens = this.tokens(hypothesis);
    const room = this.maxLength - this.pairOverhead - hypothesisTokens.length;
    if (room < 0) throw new HypothesisTooLongError(hypothesis, hypothesisTokens.length, this.maxLength);
    const { tokens, typeIds } = this.template(premiseTokens.slice(0, room), hypothesisTokens);
    return { ids: tokens.map((token: string) => this.idOf(token)), typeIds };
  }

  private template(
    premise: readonly string[],
    hypothesis: readonly string[],
  ): { tokens: string[]; typeIds: number[] } {
    const processor = this.tokenizer.post_processor;
    if (!processor) {
      return {
        tokens: [...premise, ...hypothesis],
        typeIds: [...premise.map(() => 0), ...hypothesis.map(() => 1)],
      };
    }
    const out: { tokens: string[]; token_type_ids?: number[] } = processor.post_process(
      [...premise],
      [...hypothesis],
      true,
    );
    return { tokens: out.tokens, typeIds: out.token_type_ids ?? out.tokens.map(() => 0) };
  }

  /** As Tokenizer.encode maps tokens: added tokens first, then the model's vocabulary, then unknown. */
  private idOf(token: string): number {
    const id: number | undefined =
      this.addedIds.get(token) ?? this.tokenizer.token_to_id(token) ?? this.tokenizer.model?.unk_token_id;
    if (id === undefined)
      throw new Error(`token "${token}" has no id and the tokenizer has no unknown token`);
    return id;
  }
}

/** Model inputs for a batch, right-padded to its longest pair. */
export interface PaddedBatch {
  readonly batch: number;
  readonly width: number;
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly typeIds: BigInt64Array;
}

export function padBatch(pairs: readonly EncodedPair[], padId: number): PaddedBatch {
  const width = Math.max(...pairs.map((pair) => pair.ids.length));
  const size = pairs.length * width;
  const inputIds = new BigInt64Array(size).fill(BigInt(padId));
  const attentionMask = new BigInt64Array(size);
  const typeIds = new BigInt64Array(size);
  pairs.forEach((pair, row) => {
    pair.ids.forEach((id, i) => {
      inputIds[row * width + i] = BigInt(id);
      attentionMask[row * width + i] = 1n;
      typeIds[row * width + i] = BigInt(pair.typeIds[i] ?? 0);
    });
  });
  return { batch: pairs.length, width, inputIds, attentionMask, typeIds };
}
