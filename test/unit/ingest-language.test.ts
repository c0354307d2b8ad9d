import { describe, expect, it } from 'vitest';
import { languageOf } from '../../src/ingest/steps/language.ts';

describe('languageOf: from the hit', () => {
  it.each([
    ['en-US', 'en'],
    ['en', 'en'],
    ['de', 'de'],
    ['de-DE', 'de'],
    ['pt_BR', 'pt'],
    ['pt-BR', 'pt'],
    ['zh-Hant-TW', 'zh'],
    ['zh-Hans', 'zh'],
    ['sr-Latn-RS', 'sr'],
    ['es-419', 'es'],
    ['EN-gb', 'en'],
    ['FR', 'fr'],
    ['  es  ', 'es'],
    ['fil-PH', 'fil'],
    ['yue-Hant-HK', 'yue'],
  ])('%j → %s', (fromHit, language) => {
    expect(languageOf(fromHit, null)).toBe(language);
    // The hit wins over Accept-Language.
    expect(languageOf(fromHit, 'ja-JP,ja;q=0.9')).toBe(language);
  });
});

describe('languageOf: falls back to Accept-Language', () => {
  it.each([
    [null, 'fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    [undefined, 'fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['12', 'fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['<script>', 'fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['', 'fr-CH, fr;q=0.9, en;q=0.8', 'fr'],
    ['   ', 'de', 'de'],
    ['english', 'en-US,en;q=0.9', 'en'],
    ['e', 'nl-BE', 'nl'],
    ['en-', 'it', 'it'],
    ['en US', 'pl', 'pl'],
    [null, 'de-DE;q=0.9', 'de'],
    [null, ' it-IT , en', 'it'],
    [null, 'pt_BR', 'pt'],
    [null, 'ZH-TW,zh;q=0.9', 'zh'],
  ])('hit %j, Accept-Language %j → %s', (fromHit, acceptLanguage, language) => {
    expect(languageOf(fromHit, acceptLanguage)).toBe(language);
  });
});

describe('languageOf: nothing usable', () => {
  it.each([
    [null, null],
    [undefined, null],
    ['', null],
    ['12', '*'],
    ['<script>', '<script>'],
    [null, ''],
    [null, '*'],
    [null, '*;q=0.5, en'],
    ['x-klingon', null],
    ['i-navajo', null],
    ['en-US-x-verylongprivateuse', null],
    ['e', 'f'],
  ])('hit %j, Accept-Language %j → null', (fromHit, acceptLanguage) => {
    expect(languageOf(fromHit, acceptLanguage)).toBeNull();
  });
});
