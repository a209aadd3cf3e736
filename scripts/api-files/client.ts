import openapiTS, { astToString } from 'openapi-typescript';
import type { Operation, VersionDocument } from './documents.js';
import { operationsOf } from './documents.js';
import { formatted } from './format.js';

// The packaged client of one version, src/client/v<version>/: the document's types
// (openapi-typescript) in openapi.ts and, in index.ts, createClient() with one method per
// operation, named by its operationId, over the small fetch runtime of src/client/runtime.ts.

function comment(lines: string[], indent: string): string {
  const body = lines
    .flatMap((line) => line.split('\n'))
    .map((line) => `${indent} *${line === '' ? '' : ` ${line.replaceAll('*/', '*\\/')}`}`);
  return `${indent}/**\n${body.join('\n')}\n${indent} */\n`;
}

function inputType(op: Operation): { type: string; required: boolean } {
  const at = `operations['${op.operationId}']`;
  const fields: string[] = [];
  let required = false;
  const by = (where: string) => op.parameters.filter((p) => p.in === where);
  if (by('path').length > 0) {
    fields.push(`path: ${at}['parameters']['path'];`);
    required = true;
  }
  if (by('query').length > 0) {
    const some = by('query').some((p) => p.required === true);
    fields.push(`query${some ? '' : '?'}: NonNullable<${at}['parameters']['query']>;`);
    required ||= some;
  }
  if (by('header').length > 0) {
    fields.push(`headers?: NonNullable<${at}['parameters']['header']>;`);
  }
  if (op.body !== undefined) {
    const body = `NonNullable<${at}['requestBody']>['content']['${op.body.type}']`;
    fields.push(`body${op.body.required ? '' : '?'}: ${body};`);
    required ||= op.body.required;
  }
  fields.push('signal?: AbortSignal;');
  return { type: `{ ${fields.join(' ')} }`, required };
}

function answerType(op: Operation): string {
  const types = new Set<string>();
  for (const [status, media] of Object.entries(op.answers)) {
    for (const type of media) {
      if (/^application\/([\w.+-]+\+)?json$/.test(type)) {
        types.add(`operations['${op.operationId}']['responses'][${status}]['content']['${type}']`);
      } else if (type.startsWith('text/')) types.add('string');
      else types.add('Uint8Array');
    }
  }
  return types.size === 0 ? 'void' : [...types].join(' | ');
}

export interface ClientFiles {
  /** src/client/v<version>/openapi.ts */
  readonly types: string;
  /** src/client/v<version>/index.ts */
  readonly index: string;
}

export async function clientFiles({
  version,
  document,
  source,
}: VersionDocument): Promise<ClientFiles> {
  const header = `// Generated from /v${version}/openapi.json by scripts/api-files (npm run api:generate). Do not edit.\n\n`;
  const types = header + astToString(await openapiTS(source, { alphabetize: true }));
  const operations = operationsOf(document);
  const methods = operations.map((op) => {
    const input = inputType(op);
    const doc = comment(
      [
        op.summary,
        '',
        `\`${op.method} ${op.path}\``,
        ...(op.description === '' ? [] : ['', op.description]),
      ],
      '  ',
    );
    return `${doc}  ${op.operationId}(input${input.required ? '' : '?'}: ${input.type}): Promise<${answerType(op)}>;`;
  });
  const specs = operations.map((op) => {
    const body = op.body === undefined ? '' : `, bodyType: '${op.body.type}'`;
    return `    ${op.operationId}: (input) => call({ method: '${op.method}', path: '${op.path}'${body} }, input),`;
  });
  const index = `${header}import type { ClientOptions } from '../runtime.js';
import { createCaller } from '../runtime.js';
import type { operations } from './openapi.js';

export type { ClientOptions } from '../runtime.js';
export { EsimApiError } from '../runtime.js';
export type { components, operations, paths } from './openapi.js';

/** The v${version} interface: one method per operation of /v${version}/openapi.json. */
export interface EsimClient {
${methods.join('\n\n')}
}

/**
 * A client of the v${version} interface. A method resolves to the parsed answer (JSON parsed,
 * CSV as text, a ZIP as bytes) and rejects with an EsimApiError on any other status than 2xx.
 */
export function createClient(options: ClientOptions): EsimClient {
  const call = createCaller(options);
  return {
${specs.join('\n')}
  };
}
`;
  return {
    types: await formatted(types, 'typescript'),
    index: await formatted(index, 'typescript'),
  };
}
