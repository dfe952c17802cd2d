import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

import gettextParser from 'gettext-parser';

const run = promisify(execFile);

/**
 * Debian 12 packages whose gettext catalogues (`/usr/share/locale/<locale>/LC_MESSAGES/*.mo`) hold
 * the corpus: messages written by people (the programs' authors in English, the translation teams
 * in each language), none by this project or a machine translation engine. Command-line tools,
 * libraries' messages, GTK's property descriptions, printer and settings dialogs.
 */
export const CATALOGUE_PACKAGES = [
  'coreutils',
  'bash',
  'git',
  'dpkg',
  'apt',
  'gettext',
  'binutils-common',
  'libc-l10n',
  'procps',
  'findutils',
  'grep',
  'sed',
  'tar',
  'diffutils',
  'wget',
  'gnupg-l10n',
  'util-linux-locales',
  'e2fsprogs-l10n',
  'postgresql-15',
  'libgtk-3-common',
  'libglib2.0-data',
  'libgdk-pixbuf2.0-common',
  'gsettings-desktop-schemas',
  'system-config-printer-common',
] as const;

/** Catalogue locales -> our codes: the 13 published languages and Malay, Indonesian's neighbour. */
export const LOCALES: Readonly<Record<string, string>> = {
  zh_CN: 'zh-CN',
  zh_TW: 'zh-TW',
  ja: 'ja',
  ko: 'ko',
  es: 'es',
  fr: 'fr',
  de: 'de',
  pt: 'pt',
  pt_BR: 'pt',
  ru: 'ru',
  ar: 'ar',
  hi: 'hi',
  id: 'id',
  ms: 'ms',
};

export interface CatalogueFile {
  readonly packageName: string;
  readonly locale: string;
  readonly path: string;
}

/** The installed version of each package, installing the missing ones with apt-get (needs root). */
export async function ensurePackages(packages: readonly string[]): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of packages) {
    const version = await installedVersion(name);
    if (version) versions[name] = version;
    else missing.push(name);
  }
  if (missing.length > 0) {
    console.error(`corpus: apt-get install ${missing.join(' ')}`);
    await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const name of missing) versions[name] = (await installedVersion(name)) ?? 'missing';
  }
  return versions;
}

async function installedVersion(name: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('dpkg-query', ['-W', '-f=${db:Status-Status} ${Version}', name]);
    const [status, version] = stdout.trim().split(' ');
    return status === 'installed' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The package's catalogues of the locales in LOCALES (and every locale, for their English msgids). */
export async function catalogueFiles(packageName: string): Promise<CatalogueFile[]> {
  const { stdout } = await run('dpkg', ['-L', packageName], { maxBuffer: 64 * 1024 * 1024 });
  return stdout
    .split('\n')
    .filter((path) => path.startsWith('/usr/share/locale/') && path.endsWith('.mo'))
    .map((path) => ({ packageName, locale: path.split('/')[4] ?? '', path }));
}

/** One translated message: the English original and its translations (plural forms included). */
export interface Message {
  readonly english: readonly string[];
  readonly translations: readonly string[];
}

/** The messages of a compiled catalogue, decoded from its own charset (EUC-JP, Big5... as declared). */
export async function readCatalogue(path: string): Promise<Message[]> {
  const catalogue = gettextParser.mo.parse(await readFile(path));
  const messages: Message[] = [];
  for (const context of Object.values(catalogue.translations)) {
    for (const entry of Object.values(context)) {
      if (!entry.msgid) continue;
      messages.push({
        english: [entry.msgid, ...(entry.msgid_plural ? [entry.msgid_plural] : [])],
        translations: entry.msgstr,
      });
    }
  }
  return messages;
}
