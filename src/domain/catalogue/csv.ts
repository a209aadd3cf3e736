// RFC 4180 CSV: comma-separated, fields optionally in double quotes ("" inside quotes is one
// quote; quoted fields may hold commas and line breaks), LF or CRLF line ends. Each record
// carries the line it starts on, so import errors can point at it.

export interface CsvRecord {
  readonly line: number;
  readonly fields: readonly string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 1;
  let fieldStarted = false;
  const endRecord = (): void => {
    fields.push(field);
    // A line with nothing on it is not a record.
    if (!(fields.length === 1 && fields[0] === '' && !fieldStarted)) {
      records.push({ line: recordLine, fields });
    }
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else {
          quoted = false;
        }
      } else {
        if (c === '\n') line += 1;
        field += c;
      }
      continue;
    }
    if (c === '"') {
      if (field !== '') throw new CsvSyntaxError(line, 'a quote may only start a field');
      quoted = true;
      quoteLine = line;
      fieldStarted = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else {
      field += c;
    }
  }
  if (quoted) throw new CsvSyntaxError(quoteLine, 'a quoted field is never closed');
  if (field !== '' || fields.length > 0 || fieldStarted) endRecord();
  return records;
}
