import { codePointString } from '@tp/runtime';

/** A field's text in a report or an edit: 1 to `maxTextChars` characters (code points), no U+0000. */
export const contentText = (maxTextChars: number) =>
  codePointString(maxTextChars, { message: `text must be at most ${maxTextChars} characters` })
    .min(1, { message: 'text must not be empty' })
    .refine((t) => !t.includes('\u0000'), { message: 'text must not contain U+0000' });
