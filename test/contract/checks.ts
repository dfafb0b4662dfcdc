/**
 * The response checks of a spec-driven contract run, after Schemathesis's (docs/decisions.md D90): every answer
 * is judged against what the spec documents for its operation, whatever the request was.
 * - not_a_server_error: no 5xx;
 * - status_code_conformance: the status is one the operation lists (or its `default`);
 * - content_type_conformance: the media type is one documented for that status; an answer without documented
 *   content has no body;
 * - response_headers_conformance: every required header is there, and every documented header that is there
 *   has a value of its schema;
 * - response_schema_conformance: a JSON body is valid against the documented schema.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { Operation } from '../../src/http/spec';
import { inline, type Referee, type Schema } from './schemas';

export interface Exchange {
  status: number;
  headers: Headers;
  text: string;
}

type Response = OpenAPIV3_1.ResponseObject;

export class ResponseChecks {
  private readonly responses = new Map<string, Record<string, Response>>();

  constructor(
    private readonly document: OpenAPIV3_1.Document,
    private readonly referee: Referee,
  ) {}

  /** The problems of one answer (empty when it keeps the contract), each `check: detail`. */
  check(op: Operation, answer: Exchange): string[] {
    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`not_a_server_error: ${answer.status} ${answer.text.slice(0, 300)}`);
    const documented = this.documented(op);
    const response = documented[String(answer.status)] ?? documented[`${String(answer.status)[0]}XX`];
    const chosen = response ?? documented.default;
    if (!response && !documented.default) {
      problems.push(`status_code_conformance: ${answer.status} is not one of ${Object.keys(documented).join(', ')}`);
    }
    if (!chosen) return problems;
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const content = chosen.content ?? {};
    const hasBody = answer.text.length > 0;
    if (!Object.keys(content).length) {
      if (hasBody) problems.push(`content_type_conformance: ${answer.status} documents no body, got ${mediaType}`);
    } else if (hasBody && !(mediaType in content)) {
      problems.push(
        `content_type_conformance: ${answer.status} is ${mediaType || 'untyped'}, documented ${Object.keys(content)}`,
      );
    }
    for (const [name, header] of Object.entries(chosen.headers ?? {}) as Array<[string, OpenAPIV3_1.HeaderObject]>) {
      const value = answer.headers.get(name);
      if (value === null) {
        if (header.required) problems.push(`response_headers_conformance: required ${name} missing`);
        continue;
      }
      if (header.schema && !this.referee.acceptsText(header.schema as Schema, value)) {
        problems.push(`response_headers_conformance: ${name}: ${JSON.stringify(value)} is not of its schema`);
      }
    }
    const schema = content[mediaType]?.schema as Schema | undefined;
    if (schema && hasBody && mediaType.endsWith('json')) {
      let body: unknown;
      try {
        body = JSON.parse(answer.text);
      } catch {
        problems.push(`response_schema_conformance: ${mediaType} body is not JSON`);
      }
      if (body !== undefined) {
        const errors = this.referee.explain(schema, body);
        if (errors) problems.push(`response_schema_conformance: ${errors}`);
      }
    }
    return problems;
  }

  /** The operation's responses, inlined once. */
  private documented(op: Operation): Record<string, Response> {
    let responses = this.responses.get(op.operationId);
    if (!responses) {
      responses = inline(this.document, op.definition.responses ?? {}) as Record<string, Response>;
      this.responses.set(op.operationId, responses);
    }
    return responses;
  }
}
