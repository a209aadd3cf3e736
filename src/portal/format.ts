// How the portal shows money, time and sizes.

const MINOR_DIGITS_FALLBACK = 2;

/** 100000 minor units of USD -> '$1,000.00'. */
export function formatMoney(minorUnits: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? MINOR_DIGITS_FALLBACK;
  return format.format(minorUnits / 10 ** digits);
}

/** An RFC 3339 instant in the user's time zone: '23 Nov 2026, 20:06 GMT'. */
export function formatDateTime(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  }).format(date);
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
