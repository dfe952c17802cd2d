// The part of gettext-parser's API the corpus uses (the package ships no types).
declare module 'gettext-parser' {
  interface GetTextEntry {
    readonly msgid: string;
    readonly msgid_plural?: string;
    readonly msgstr: string[];
  }
  interface GetTextCatalogue {
    readonly charset: string;
    readonly translations: Record<string, Record<string, GetTextEntry>>;
  }
  const gettextParser: { mo: { parse(buffer: Buffer, defaultCharset?: string): GetTextCatalogue } };
  export default gettextParser;
}
