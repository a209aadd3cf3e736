import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The access log: one line per request, written when it is answered, with the method, redacted
// URL and client address (`req`, app.ts's serializer), the status (`res`) and the time taken in
// milliseconds (`responseTime`). Fastify writes two lines instead, and its second lacks the
// method and URL; a person or a log query then has to pair them by request id.

export class AccessLog extends LogController {
  override incomingRequest(): void {
    // Nothing on arrival: the one line is written with the answer.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      req: request,
      res: reply,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
