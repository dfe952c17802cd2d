import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';

import { codePointString } from './text-schema.js';

const EMOJI = '😀'; // one code point, two UTF-16 units

describe('codePointString', () => {
  it('takes exactly `max` code points, emoji counting once, and refuses one more', () => {
    const name = codePointString(200);

    expect(name.safeParse(EMOJI.repeat(200)).success).toBe(true);
    const refused = name.safeParse(EMOJI.repeat(201));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ code: 'too_big', maximum: 200 });
  });

  it('keeps its message, and keeps the limit through trim and min', () => {
    const text = codePointString(3, { message: 'text must be at most 3 characters' }).trim().min(1);

    expect(text.safeParse(`${EMOJI}${EMOJI}${EMOJI}`).success).toBe(true);
    expect(text.safeParse(`${EMOJI}${EMOJI}${EMOJI}${EMOJI}`).error?.issues[0]?.message).toBe(
      'text must be at most 3 characters',
    );
    expect(text.safeParse(' ').success).toBe(false);
  });

  it('states maxLength in the JSON Schema, checked or not', () => {
    expect(z.toJSONSchema(codePointString(200).min(1))).toMatchObject({ maxLength: 200, minLength: 1 });
    const unchecked = codePointString(10, { check: false });
    expect(z.toJSONSchema(unchecked)).toMatchObject({ maxLength: 10 });
    expect(unchecked.safeParse(EMOJI.repeat(11)).success).toBe(true);
  });
});
