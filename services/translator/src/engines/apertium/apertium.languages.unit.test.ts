import { describe, expect, it } from '@jest/globals';

import { fromApertiumCode } from './apertium.languages.js';

describe('fromApertiumCode', () => {
  it.each([
    ['eng', ['en']],
    ['spa', ['es']],
    ['cat', ['ca']],
    ['por', ['pt']],
    ['glg', ['gl']],
    ['fra', ['fr']],
    ['ita', ['it']],
    ['ron', ['ro']],
    ['rus', ['ru']],
    ['ukr', ['uk']],
    ['bel', ['be']],
    ['nob', ['nb']],
    ['nno', ['nn']],
    ['dan', ['da']],
    ['swe', ['sv']],
    ['isl', ['is']],
    ['eus', ['eu']],
    ['epo', ['eo']],
    ['mkd', ['mk']],
    ['bul', ['bg']],
    ['ind', ['id']],
    ['zlm', ['ms']],
    ['urd', ['ur']],
    ['hin', ['hi']],
    ['afr', ['af']],
    ['nld', ['nl']],
    ['oci', ['oc']],
    ['hbs', ['hr', 'sr', 'bs']],
  ])('maps %s to %j', (code, ours) => {
    expect(fromApertiumCode(code)).toEqual(ours);
  });

  it.each([
    ['eng_US', ['en']],
    ['por_BR', ['pt']],
    ['cat_valencia', ['ca']],
    ['cat_valencia_uni_iec2017', ['ca']],
    ['hbs_SR', ['sr']],
  ])('maps the variant %s to %j', (code, ours) => {
    expect(fromApertiumCode(code)).toEqual(ours);
  });

  it.each([
    ['en', ['en']],
    ['gl', ['gl']],
    ['pt', ['pt']],
  ])('reads the two-letter code of an older pair (%s)', (code, ours) => {
    expect(fromApertiumCode(code)).toEqual(ours);
  });

  it('gives nothing for languages outside our list (Aragonese, Sardinian) and for nonsense', () => {
    expect(fromApertiumCode('arg')).toEqual([]);
    expect(fromApertiumCode('srd')).toEqual([]);
    expect(fromApertiumCode('zzz')).toEqual([]);
    expect(fromApertiumCode('')).toEqual([]);
  });
});
