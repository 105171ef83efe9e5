import { type Db, getItem, type ItemKey, itemOf, putItem, readItems, updateItem, unlessConflict } from './store.js';
import { PARTITION_WRITES_PER_SECOND } from './table.js';

/**
 * Which limit a counter belongs to: an application's API calls, tokens issued to a client id (`TOKEN`), or
 * token-endpoint attempts for one client id from one source address (`TOKEN_ADDR`, keyed by a hash of both). Every
 * counter item carries a TTL an hour past its window.
 */
/** A fixed one-minute UTC window (contract 8): the counters' key and lifetime, the reset the headers announce. */
export type RateWindow = { start: string; endMs: number; resetSeconds: number; expiresAtSeconds: number };

export function rateWindow(nowMs: number): RateWindow {
  const startMs = nowMs - (nowMs % 60_000);
  return {
    start: new Date(startMs).toISOString().slice(0, 16),
    endMs: startMs + 60_000,
    resetSeconds: Math.max(1, Math.ceil((startMs + 60_000 - nowMs) / 1000)),
    // Counters outlive their window briefly; TTL then removes them.
    expiresAtSeconds: Math.ceil((startMs + 60_000) / 1000) + 3600,
  };
}

export type CounterKind = 'API' | 'TOKEN' | 'TOKEN_ADDR';

/**
 * Every request of an application in a minute is one ADD on the same small
 * item (under 1 KB: one write unit), and one item lives in one partition,
 * which takes at most PARTITION_WRITES_PER_SECOND. So no application's limit
 * may exceed what that item can count in a minute.
 */
export const APP_RATE_CEILING_PER_MINUTE = PARTITION_WRITES_PER_SECOND * 60;

export const counterKeys = {
  counter: (kind: CounterKind, subject: string, windowStart: string) => ({
    PK: `RATE#${kind}#${subject}`,
    SK: windowStart,
  }),
  /** A client id and address (the TOKEN_ADDR subject) that got a token: admitted past the attempt budget until its TTL. */
  admitted: (subject: string) => ({ PK: `RATE#TOKEN_ADMITTED#${subject}`, SK: 'ADMITTED' }),
};

/**
 * What a lease claim may not pass: the application's limit, and the 80 % mark, which no lease of several units
 * straddles (the unit at the mark is always the first of its lease, so the request that claimed it is the one
 * admitted with it).
 */
export type ClaimBounds = { limit: number; warnAt: number | null };

export function rateCountersRepo(db: Db) {
  /** One atomic ADD of 1 to an attribute of a counter item, its TTL set: the new value. */
  const addOne = async (key: ItemKey, attribute: 'count' | 'refused', ttl: number): Promise<number> => {
    const { Attributes } = await updateItem(db, {
      Key: key,
      UpdateExpression: 'ADD #n :one SET #ttl = :ttl',
      ExpressionAttributeNames: { '#n': attribute, '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': ttl },
      ReturnValues: 'UPDATED_NEW',
    });
    return Number(Attributes?.[attribute] ?? 0);
  };
  return {
    /**
     * Counts one request in a window with a single atomic ADD and returns the new total; each total is seen by
     * exactly one request, which is what makes "alert once per window" free of extra writes.
     */
    hit: (kind: CounterKind, subject: string, windowStart: string, expiresAtSeconds: number) =>
      addOne(counterKeys.counter(kind, subject, windowStart), 'count', expiresAtSeconds),
    /**
     * Claims `units` of an application's window in one conditional ADD that never takes the count past
     * `bounds.limit`: the new count (the lease is the units just below it and it), or null when they do not fit.
     */
    async claim(subject: string, window: RateWindow, units: number, { limit, warnAt }: ClaimBounds): Promise<number | null> {
      // No arithmetic in a condition: the bounds arrive as the highest counts the claim may start from.
      const straddles = warnAt !== null && units > 1;
      const written = await unlessConflict(
        updateItem(db, {
          Key: counterKeys.counter('API', subject, window.start),
          UpdateExpression: 'ADD #count :units SET #ttl = :ttl',
          ConditionExpression: `attribute_not_exists(#count) OR (#count <= :max${straddles ? ' AND (#count <= :below OR #count >= :from)' : ''})`,
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':units': units,
            ':ttl': window.expiresAtSeconds,
            ':max': limit - units,
            ...(straddles ? { ':below': warnAt - 1 - units, ':from': warnAt - 1 } : {}),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return written && Number(written.Attributes?.count ?? 0);
    },
    /** Numbers the refusals of a window, once per function instance: the first alone mails the owner. */
    refusal: (subject: string, window: RateWindow) =>
      addOne(counterKeys.counter('API', subject, window.start), 'refused', window.expiresAtSeconds),
    /** Several applications' counts in one window (eventually consistent: an operator's view), 0 for none. */
    async counts(subjects: readonly string[], windowStart: string): Promise<Map<string, number>> {
      const keys = subjects.map((s) => counterKeys.counter('API', s, windowStart));
      const found = await readItems(db, keys, false);
      return new Map(subjects.map((s, i) => [s, Number(itemOf(found, keys[i]!)?.count ?? 0)]));
    },
    /** Admits a token-attempt subject until `untilSeconds` (epoch seconds, its TTL). */
    async admit(subject: string, untilSeconds: number) {
      await putItem(db, { Item: { ...counterKeys.admitted(subject), ttl: untilSeconds } });
    },
    /** Whether a token-attempt subject is admitted at `nowMs` (TTL deletes lazily: the time is compared). */
    async admitted(subject: string, nowMs: number) {
      const item = await getItem(db, counterKeys.admitted(subject));
      return item !== null && Number(item.ttl) * 1000 > nowMs;
    },
  };
}

/**
 * Leased quota (docs/decisions/rate-leases.md). A function instance claims several units of an application's
 * window in one `claim` and admits from them in memory; each unit is one numbered request of the window, so
 * units never repeat across instances and none is numbered past the limit the claim was made under.
 *
 * A lease lives at most LEASE_MS and never past its window. Its size is one rule, `leaseSize`.
 */
export const LEASE_MS = 2_000;
/** All instances' leases of one application together hold about this share of its limit (what a crash or the window's end can strand). */
export const STRANDED_SHARE = 0.01;
/** A lease never takes more than this fraction of what the instance last saw left: the quota's tail goes one by one. */
const TAIL_DIVISOR = 8;

export type LeaseInputs = {
  /** Requests a millisecond this instance admitted for the application, over its last lease. */
  ratePerMs: number;
  /** This instance's part of the application's claims between its last two (1 when alone). */
  share: number;
  limit: number;
  /** The window's count when this instance last claimed. */
  seen: number;
  warnAt: number | null;
  msLeft: number;
};

/**
 * How many units the next claim asks for: what this instance would admit in a lease's life (at most LEASE_MS,
 * at most the window's time left), but no more than its share of STRANDED_SHARE of the limit, an eighth of what
 * was left, or what fits below the 80 % mark. At least one: a request that finds no lease claims its own unit.
 */
export function leaseSize({ ratePerMs, share, limit, seen, warnAt, msLeft }: LeaseInputs): number {
  const left = limit - seen;
  const wanted = Math.min(ratePerMs * Math.min(LEASE_MS, msLeft), share * limit * STRANDED_SHARE, left / TAIL_DIVISOR);
  const belowMark = warnAt !== null && seen < warnAt - 1 ? warnAt - 1 - seen : Infinity;
  return Math.max(1, Math.min(Math.floor(wanted), belowMark, left));
}

/**
 * A unit to admit with, and `counted`: the window's count as this instance knows it (at its last claim, its own
 * unused units in it) plus what the others have claimed since at the pace the window shows so far; or the window
 * full under `limit`.
 */
export type Grant =
  | { unit: number; counted: number }
  | { full: true; limit: number; /** units the refused claim asked for; 0: remembered, no call made */ asked: number };

type Lease = { next: number; end: number; expiresAt: number };

/** An application's book in one window: `old`, its book of an earlier window, hands on the rate and share. */
const newBook = (window: RateWindow, old?: { claimedAt: number; ratePerMs: number; share: number }) => ({
  window: window.start,
  leases: [] as Lease[],
  seen: 0,
  /** The limit a claim found the window full under, if one did. */
  fullUnder: null as number | null,
  /** Whether this instance has numbered a refusal in the window. */
  refused: false,
  // Sizing: the last claim's instant and units, the units admitted since, the rate and share they gave.
  claimedAt: old?.claimedAt ?? 0,
  claimed: 0,
  used: 0,
  ratePerMs: old?.ratePerMs ?? 0,
  share: old?.share ?? 1,
  /** Units this instance claimed in the window, and those the others claim a millisecond, on the window's average. */
  mine: 0,
  othersPerMs: 0,
  /** The highest count this instance has reported in the window: what it shows never goes back up. */
  counted: 0,
});
type Book = ReturnType<typeof newBook>;

/** Books of at most this many applications; older windows' books go first (a function instance serves few). */
const MAX_BOOKS = 1_000;

/** One function instance's leases, per application, claimed through `repo`. Built once per handler: its state is the instance's alone. */
export function rateLeases(repo: RateCountersRepo) {
  const books = new Map<string, Book>();
  /** Limits and 80 % marks read on this instance's last request of each application: the bounds of its next claim. */
  const bounds = new Map<string, ClaimBounds>();

  const bookOf = (clientId: string, window: RateWindow): Book => {
    const old = books.get(clientId);
    if (old?.window === window.start) return old;
    if (!old && books.size >= MAX_BOOKS) {
      for (const [id, b] of books) if (b.window !== window.start || books.size >= MAX_BOOKS) books.delete(id);
    }
    // A lease dies with its window; the instance's rate and share carry over.
    const book = newBook(window, old);
    books.set(clientId, book);
    return book;
  };

  const claim = async (clientId: string, window: RateWindow, now: number, units: number, limits: ClaimBounds): Promise<Grant> => {
    const book = bookOf(clientId, window);
    const before = book.seen;
    const total = await repo.claim(clientId, window, units, limits);
    if (total === null) {
      book.fullUnder = limits.limit;
      return { full: true, limit: limits.limit, asked: units };
    }
    // The claiming request takes the lease's first unit; the rest wait in memory until they expire.
    const first = total - units + 1;
    if (units > 1) book.leases.push({ next: first + 1, end: total, expiresAt: Math.min(now + LEASE_MS, window.endMs) });
    book.share = total > before ? Math.min(1, units / (total - before)) : book.share;
    // The other instances' pace of claims over the window so far.
    book.mine += units;
    book.othersPerMs = (total - book.mine) / Math.max(1, now - (window.endMs - 60_000));
    book.seen = Math.max(book.seen, total);
    book.fullUnder = null;
    Object.assign(book, { claimedAt: now, claimed: units, used: 1 });
    return { unit: first, counted: (book.counted = Math.max(book.counted, book.seen)) };
  };

  return {
    /** A unit from a live lease, with no call; else the window remembered full; else one claim, sized by `leaseSize`. */
    acquire(clientId: string, window: RateWindow, now: number): Promise<Grant> {
      const book = bookOf(clientId, window);
      book.leases = book.leases.filter((l) => l.next <= l.end && l.expiresAt > now);
      const lease = book.leases[0];
      if (lease) {
        book.used++;
        book.counted = Math.max(book.counted, book.seen + Math.round(book.othersPerMs * (now - book.claimedAt)));
        return Promise.resolve({ unit: lease.next++, counted: book.counted });
      }
      if (book.fullUnder !== null) return Promise.resolve({ full: true, limit: book.fullUnder, asked: 0 });
      const known = bounds.get(clientId);
      if (book.claimed > 0) book.ratePerMs = book.used / Math.max(1, now - book.claimedAt);
      // An application not seen yet: one unit, under the highest limit any application may have (the limit read beside it decides).
      const limits = known ?? { limit: APP_RATE_CEILING_PER_MINUTE, warnAt: null };
      const units = known
        ? leaseSize({ ratePerMs: book.ratePerMs, share: book.share, seen: book.seen, msLeft: window.endMs - now, ...known })
        : 1;
      return claim(clientId, window, now, units, limits);
    },
    /** One unit under the limit just read: after a claim of several was refused, or a window full under a lower limit. */
    retry(clientId: string, window: RateWindow, now: number, limits: ClaimBounds): Promise<Grant> {
      return claim(clientId, window, now, 1, limits);
    },
    /** Whether a claim found the window full and nothing since said otherwise: the request will be refused, unless the limit was raised. */
    knowsFull(clientId: string, window: RateWindow): boolean {
      const book = books.get(clientId);
      return book?.window === window.start && book.fullUnder !== null && !book.leases.length;
    },
    /** The limit read on this request: later claims never pass it. */
    learn(clientId: string, limits: ClaimBounds) {
      // Forgetting costs only a one-unit claim: the memory stays bounded whatever the callers.
      if (bounds.size >= MAX_BOOKS && !bounds.has(clientId)) bounds.clear();
      bounds.set(clientId, limits);
    },
    /** Units past the limit in force are never admitted: the leases go, and the window is full under it. */
    full(clientId: string, window: RateWindow, limit: number) {
      const book = bookOf(clientId, window);
      book.leases = [];
      book.fullUnder = limit;
    },
    /** True once per window: this instance's first refusal, the one it numbers. */
    firstRefusal(clientId: string, window: RateWindow): boolean {
      const book = bookOf(clientId, window);
      return !book.refused && (book.refused = true);
    },
  };
}

export type RateLeases = ReturnType<typeof rateLeases>;
type RateCountersRepo = ReturnType<typeof rateCountersRepo>;
