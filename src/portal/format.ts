// How the portal shows money, time and sizes.

const MINOR_DIGITS_FALLBACK = 2;

// Building an Intl formatter costs about as much as formatting a hundred values with it, and
// each holds native memory: one formatter per currency and per time zone is made once and kept.
// Both sets are small and closed (ISO 4217 codes, IANA zones), and a user's time zone is checked
// when it is saved; the caches are bounded anyway, dropping everything when full.
const MAX_CACHED_FORMATS = 500;

function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const found = cache.get(key);
  if (found !== undefined) return found;
  if (cache.size >= MAX_CACHED_FORMATS) cache.clear();
  const made = make();
  cache.set(key, made);
  return made;
}

const moneyFormats = new Map<string, { format: Intl.NumberFormat; digits: number }>();

/** 100000 minor units of USD -> '$1,000.00'. */
export function formatMoney(minorUnits: number, currency: string): string {
  const { format, digits } = cached(moneyFormats, currency, () => {
    const made = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    return {
      format: made,
      digits: made.resolvedOptions().maximumFractionDigits ?? MINOR_DIGITS_FALLBACK,
    };
  });
  return format.format(minorUnits / 10 ** digits);
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** An RFC 3339 instant in the user's time zone: '23 Nov 2026, 20:06 GMT'. */
export function formatDateTime(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const format = cached(
    dateTimeFormats,
    timeZone,
    () =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone,
        day: 'numeric',
        month: 'short',
        year: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
      }),
  );
  return format.format(date);
}

/**
 * Decimal megabytes (the service's unit: 1 MB = 1,000,000 bytes, as bundles are sold) as people
 * read them: '512 MB', '1.5 GB', 'Unlimited' for -1.
 */
export function formatBytes(mb: number): string {
  if (mb < 0) return 'Unlimited';
  if (mb < 1000) return `${Math.round(mb * 10) / 10} MB`;
  const gb = mb / 1000;
  return `${Math.round(gb * 100) / 100} GB`;
}
