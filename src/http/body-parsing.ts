import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../domain/errors/error-codes.js';

// Body parsing. The interface speaks JSON; besides that, a route that takes no body (a POST such
// as the top-up, whose input is its query string) accepts an empty body under any content type,
// because common HTTP clients send `Content-Type: application/x-www-form-urlencoded` or
// `application/json` with nothing after it. So does a route whose body is all optional
// (`optionalBody`: `curl -X POST -H 'content-type: application/json'` with no data means {}). A
// non-empty body of another type is still a 415, and a route that takes a body still needs a JSON
// one.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route of a later version (versions/mount.ts): see lenientRoute. */
    bodyWithoutContentType?: boolean;
    /** A route whose body fields are all optional: an empty body is no body (see installBodyParsing). */
    optionalBody?: boolean;
  }
}

/**
 * True on the routes of the later versions (versions/mount.ts): real clients of v2.2 and after
 * post JSON without a Content-Type, and send an empty JSON body where the fields are in the query.
 */
function lenientRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config.bodyWithoutContentType === true;
}

/** True when the matched route declares no body schema (or no route matched). */
function takesNoBody(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.body === undefined;
}

/**
 * The parser refuses a key that would reach an object's prototype (`__proto__`, or `constructor`
 * holding `prototype`) in JSON that is otherwise valid: the refusal then names the key, where the
 * parser's own would call the JSON invalid. Undefined when the JSON itself does not parse.
 */
function forbiddenKey(body: string): Error | undefined {
  try {
    JSON.parse(body);
  } catch {
    return undefined;
  }
  return badRequest(
    'request body must not have a key named __proto__, nor constructor with prototype in it',
    'validation_failed',
  );
}

type Done = (error: Error | null, body?: unknown) => void;

function unsupportedMediaType(): Error {
  // The error handler words the 415 from the request's content type.
  return Object.assign(new Error('unsupported media type'), { statusCode: 415 });
}

export function installBodyParsing(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Fastify's default parser is the callback form: it reports success and failure through `done`
  // and returns nothing; its type also admits the promise form, hence the `void`.
  const parse = (request: FastifyRequest, text: string, done: Done): void => {
    void parseJson(request, text, (error, parsed) => {
      done(error === null ? null : (forbiddenKey(text) ?? error), parsed);
    });
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Emptiness first: a body that has one never reads the route's options (a getter that
    // builds them on each read).
    const empty = String(body).trim() === '';
    if (
      empty &&
      (takesNoBody(request) ||
        lenientRoute(request) ||
        request.routeOptions.config.optionalBody === true)
    ) {
      done(null, undefined);
      return;
    }
    parse(request, String(body), done);
  });
  // Anything else: read (within BODY_LIMIT_BYTES) and accept only when empty on a no-body route.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (takesNoBody(request) && body.length === 0) done(null, undefined);
    else if (request.headers['content-type'] === undefined && lenientRoute(request)) {
      if (body.toString('utf8').trim() === '') done(null, undefined);
      else parse(request, body.toString('utf8'), done);
    } else done(unsupportedMediaType(), undefined);
  });
}
