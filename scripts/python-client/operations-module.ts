import { clientOperations, type OpenApi, type Operation, successes } from './openapi.js';
import { docstring, GENERATED_HEADER, literal } from './python-text.js';

/**
 * clients/python/src/agentrun/_operations.py: each operation a client calls, with its method, its
 * full path and how its answer's body is read.
 */

const MODULE_DOC = `The operations the client calls, as docs/openapi.json (the route table's document; docs/architecture.md, "The route table") has them: method, full path and how the answer's body is read. All but the webhook ingress (called by providers), the document itself and the health probes.`;

const PREAMBLE = `from __future__ import annotations

from typing import Dict, Literal, NamedTuple

Content = Literal["json", "text", "binary", "none"]
${docstring("How an answer's body is read: parsed JSON, text, bytes, or nothing (204).")}


class Operation(NamedTuple):
${docstring("One operation of the route table: its HTTP method, its full path template, its answer's content.", '    ')}

    method: str
    path: str
    content: Content`;

export function operationsModule(document: OpenApi): string {
  const rows = clientOperations(document).map(
    ({ method, path, operation }) =>
      `    ${literal(operation.operationId)}: Operation(${literal(method)}, ${literal(path)}, ${literal(content(operation))}),`,
  );
  return [GENERATED_HEADER, docstring(MODULE_DOC), '', PREAMBLE, '', '', 'OPERATIONS: Dict[str, Operation] = {', ...rows, '}', ''].join(
    '\n',
  );
}

/** How the client reads the answer: by the media type of the first success the document lists. */
function content(operation: Operation): 'json' | 'text' | 'binary' | 'none' {
  const [, answer] = successes(operation)[0] ?? [];
  const type = Object.keys(answer?.content ?? {})[0];
  if (type === undefined) return 'none';
  if (type === 'application/json') return 'json';
  if (type.startsWith('text/')) return 'text';
  return 'binary';
}
