/**
 * The log's dictionary (docs/ARCHITECTURE.md, "The event log"): every text a hit carries —
 * pages, referrer hosts, campaigns, places, languages, browsers, event names — is stored once
 * in `dict` and referred to by its id in the rows of `log`. A row of integers is a third of a
 * row of text, so a read scans a third of the bytes and groups integers; a `contains` filter
 * compares its text with each distinct value once, not with every row.
 *
 * A value's id is a hash of it (`hashOf`), the key of `dict`, so that one table with no
 * index finds a value by its id and an id by its value: a new value writes one row (a website
 * adds few once it has run a while: its pages and places repeat). Hashes are below 2^23, so
 * that an id takes 3 bytes in a row of `log` (SQLite stores an integer in as few bytes as it
 * needs): a row is half the size it would be with 8-byte ids, and a read scans half the
 * bytes. Two values of one hash — a few dozen among 20,000 values — take the next free id: a
 * lookup walks on until it finds its value or a free id (past 2^23 if it must: ids have no
 * bound but `MAX_ID`). Both directions are cached in memory, up to `CACHED` values each.
 */
import type { LogDb } from './log-db.ts';

/** Values cached in memory per direction; the rest is looked up in `dict` when needed. */
const CACHED = 50_000;

/** The largest id: a safe integer in JavaScript and SQLite alike. */
const MAX_ID = 2 ** 52 - 1;

/** Hashes are 1 to `HASHES` (2^23 − 1: the most a 3-byte integer of SQLite holds). */
const HASHES = 2 ** 23 - 1;

/**
 * A value's hash, 1 to `HASHES`: two 32-bit FNV-1a hashes of its UTF-16 code units with
 * different offsets, 20 bits of one and 32 of the other, taken modulo `HASHES`.
 */
function hashOf(value: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return 1 + (((a >>> 12) * 2 ** 32 + (b >>> 0)) % HASHES);
}

/** A map that forgets its oldest entries beyond `limit` (insertion order). */
class Bounded<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}

/** The texts added since this many are noted in `added` at most; past it, the note starts over. */
const NOTED = 20_000;

export class Dictionary {
  private readonly ids = new Bounded<string, number>(CACHED);
  private readonly values = new Bounded<number, string>(CACHED);
  /**
   * The ids of the texts added since the note began (`epoch`), in order: what those who
   * remember what they found in the dictionary (../read/filters/filter-ids.ts) compare again. A note that
   * grows past `NOTED`, or values a rolled-back transaction added, start a new one.
   */
  private added: number[] = [];
  private epoch = 0;

  constructor(private readonly db: LogDb) {}

  /** Where the note of added texts stands: its epoch and length. */
  notedAt(): { epoch: number; at: number } {
    return { epoch: this.epoch, at: this.added.length };
  }

  /** The ids added since `at` of `epoch`, or null when that note is over. */
  addedSince(mark: { epoch: number; at: number }): number[] | null {
    return mark.epoch === this.epoch ? this.added.slice(mark.at) : null;
  }

  /**
   * The id of `value`, added to `dict` when it is new (within the caller's transaction: a
   * rolled-back hit leaves no value behind, and the caller then `forget`s the cache).
   */
  encode(value: string): number {
    const found = this.find(value);
    if (found.known) return found.id;
    this.db.rows('INSERT INTO dict (id, value) VALUES (?, ?)', found.id, value);
    this.remember(found.id, value);
    if (this.added.length >= NOTED) this.renote();
    this.added.push(found.id);
    return found.id;
  }

  /** `encode` for a value that may be absent (null stays null). */
  encodeMaybe(value: string | null): number | null {
    return value === null ? null : this.encode(value);
  }

  /** The id of a value already in the dictionary, or null. */
  idOf(value: string): number | null {
    const found = this.find(value);
    return found.known ? found.id : null;
  }

  /** Where `value` is, or the free id it would take: from its hash on, the first match or gap. */
  private find(value: string): { known: boolean; id: number } {
    const cached = this.ids.get(value);
    if (cached !== undefined) return { known: true, id: cached };
    for (let id = hashOf(value); ; id = id >= MAX_ID ? 1 : id + 1) {
      const row = this.db.rows<{ value: string }>('SELECT value FROM dict WHERE id = ?', id)[0];
      if (!row) return { known: false, id };
      if (row.value === value) {
        this.remember(id, value);
        return { known: true, id };
      }
    }
  }

  /** The value of an id (ids come from `log`, so every one is in `dict`). */
  decode(id: number): string {
    const cached = this.values.get(id);
    if (cached !== undefined) return cached;
    const row = this.db.rows<{ value: string }>('SELECT value FROM dict WHERE id = ?', id)[0];
    if (!row) throw new Error(`no value for id ${id}`);
    this.remember(id, row.value);
    return row.value;
  }

  /** `decode` for an id that may be absent. */
  decodeMaybe(id: number | null): string | null {
    return id === null ? null : this.decode(id);
  }

  /**
   * The values of many ids, read in one statement for those not cached (the values of a
   * page of results, of a flush's events).
   */
  decodeAll(ids: Iterable<number>): Map<number, string> {
    const out = new Map<number, string>();
    const missing: number[] = [];
    for (const id of ids) {
      const cached = this.values.get(id);
      if (cached !== undefined) out.set(id, cached);
      else missing.push(id);
    }
    for (let i = 0; i < missing.length; i += 10_000) {
      const rows = this.db.rows<{ id: number; value: string }>(
        'SELECT id, value FROM dict WHERE id IN (SELECT value FROM json_each(?))',
        JSON.stringify(missing.slice(i, i + 10_000)),
      );
      for (const row of rows) {
        out.set(row.id, row.value);
        this.remember(row.id, row.value);
      }
    }
    return out;
  }

  /** The values a condition on `value` (SQL over `dict`) keeps, with their ids. */
  entriesWhere(condition: {
    text: string;
    params: (string | number)[];
  }): { id: number; value: string }[] {
    return this.db.rows<{ id: number; value: string }>(
      `SELECT id, value FROM dict WHERE ${condition.text}`,
      ...condition.params,
    );
  }

  /** Forgets what the cache holds (a transaction that added values was rolled back). */
  forget(): void {
    this.ids.clear();
    this.values.clear();
    this.renote();
  }

  /** Starts a new note of the texts added. */
  private renote(): void {
    this.added = [];
    this.epoch++;
  }

  private remember(id: number, value: string): void {
    this.ids.set(value, id);
    this.values.set(id, value);
  }
}
