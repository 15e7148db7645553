import { PYTHON_NAMES, type PythonName } from './names.js';
import {
  type ClientOperation,
  clientOperations,
  dereference,
  isNull,
  type JsonSchema,
  jsonBody,
  type OpenApi,
  successes,
} from './openapi.js';
import { continued, docstring, GENERATED_HEADER, isFieldName, listed, literal, pascal, singular } from './python-text.js';

/**
 * clients/python/src/agentrun/types.py: a TypedDict for each object of every body and answer a
 * client sends or gets, a `Literal` alias for each named set of values, and the lists of run
 * states, terminal states, audit kinds and harness types as tuples. Two shapes that make the same
 * Python type are one type, under the name PYTHON_NAMES gives it or the first place it is met.
 */

const MODULE_DOC = `The wire types, as TypedDicts: the bodies the client sends and the answers it gets back, as docs/openapi.json (the route table's document) has them; docs/run-api.md and docs/management-api.md describe each field. Answers are the server's JSON as parsed: extra members a later server adds are kept, and a key marked optional here may be absent. Names and docstrings are scripts/python-client/names.ts's; a shape not named there is named after where it is.`;

const TRAILER = `JsonBody = Union[Dict[str, Any], List[Any]]
${docstring('Any JSON object or array, for ``Client.request()``.')}`;

/** The name and docstring a shape gets when the table names it nowhere. */
interface Hint {
  name: string;
  doc: string;
  /** Where it is, for an error message. */
  at: string;
}

interface Field {
  key: string;
  required: boolean;
  type: string;
  description?: string;
}

export const typesModule = (document: OpenApi): string => new TypesModule(document).render();

class TypesModule {
  private readonly blocks: string[] = [];
  /** The names the table gives, by the schema object they name. */
  private readonly named = new Map<JsonSchema, PythonName>();
  /** Each emitted type's name by its Python shape, and the shape and place of each name. */
  private readonly byShape = new Map<string, string>();
  private readonly names = new Map<string, { shape: string; at: string }>();
  private readonly done = new Map<JsonSchema, string>();

  constructor(private readonly document: OpenApi) {
    const operations = clientOperations(document);
    for (const entry of PYTHON_NAMES) {
      const schema = this.place(operations, entry.at);
      if (this.named.has(schema)) throw new Error(`${entry.at}: named twice (${this.named.get(schema)?.name}, ${entry.name})`);
      this.named.set(schema, entry);
    }
    // The table's names first, in its order, so that a shape met again elsewhere takes its name.
    for (const entry of PYTHON_NAMES) this.type(this.place(operations, entry.at), { name: entry.name, doc: entry.doc ?? '', at: entry.at });
    for (const { operation } of operations) {
      const id = operation.operationId;
      const body = jsonBody(operation);
      if (body !== undefined && hasMembers(body, document)) {
        this.type(body, {
          name: `${pascal(id)}Body`,
          doc: `The body of \`\`${id}\`\`: ${continued(operation.summary ?? '')}`,
          at: `${id} body`,
        });
      }
      for (const [status, answer] of successes(operation)) {
        const schema = answer.content?.['application/json']?.schema;
        if (schema === undefined) continue;
        this.type(schema, {
          name: `${pascal(id)}Response`,
          doc: `The answer of \`\`${id}\`\`: ${continued(answer.description ?? '')}`,
          at: `${id} ${status}`,
        });
      }
    }
  }

  render(): string {
    const blocks = [...this.blocks, TRAILER];
    const used = ['Any', 'Dict', 'FrozenSet', 'List', 'Literal', 'Optional', 'Tuple', 'TypedDict', 'Union'].filter((name) =>
      blocks.some((block) => new RegExp(`\\b${name}\\b`).test(block)),
    );
    return [
      GENERATED_HEADER,
      docstring(MODULE_DOC),
      '',
      'from __future__ import annotations',
      '',
      `from typing import ${used.join(', ')}`,
      ...blocks.map((block) => `\n\n${block}`),
      '',
    ].join('\n');
  }

  /** The schema at a place of the table (see names.ts). */
  private place(operations: ClientOperation[], at: string): JsonSchema {
    const [root = '', ...steps] = at.split(' ');
    let schema: JsonSchema | undefined;
    const component = this.document.components?.schemas?.[root];
    if (component !== undefined) schema = component;
    else {
      const operation = operations.find((o) => o.operation.operationId === root)?.operation;
      const where = steps.shift();
      if (operation !== undefined)
        schema = where === 'body' ? jsonBody(operation) : operation.responses[where ?? '']?.content?.['application/json']?.schema;
    }
    for (const step of steps) {
      if (schema === undefined) break;
      schema = this.bare(schema);
      if (step === '[]') schema = schema.items;
      else if (step === '{}') schema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      else if (step.startsWith('|')) schema = (schema.anyOf ?? schema.oneOf ?? []).filter((s) => !isNull(s))[Number(step.slice(1))];
      else schema = schema.properties?.[step];
    }
    if (schema === undefined) throw new Error(`scripts/python-client/names.ts: nothing at "${at}" in docs/openapi.json`);
    return this.bare(schema);
  }

  /** A schema with its `$ref` followed and a `null` beside one form stepped through. */
  private bare(schema: JsonSchema): JsonSchema {
    if (schema.$ref !== undefined) return this.bare(dereference(this.document, schema.$ref).schema);
    const forms = schema.anyOf ?? schema.oneOf;
    const others = forms?.filter((s) => !isNull(s));
    return others?.length === 1 && others[0] !== undefined ? this.bare(others[0]) : schema;
  }

  /** The Python type of a schema, emitting the TypedDicts and aliases it needs first. */
  private type(schema: JsonSchema, hint: Hint): string {
    const known = this.done.get(schema);
    if (known !== undefined) return known;
    const type = this.fresh(schema, hint);
    this.done.set(schema, type);
    return type;
  }

  private fresh(schema: JsonSchema, given: Hint): string {
    if (schema.$ref !== undefined) {
      const { name, schema: target } = dereference(this.document, schema.$ref);
      return this.type(target, { name, doc: '', at: schema.$ref });
    }
    const entry = this.named.get(schema);
    const hint = entry !== undefined ? { name: entry.name, doc: entry.doc ?? '', at: entry.at } : given;
    const forms = schema.anyOf ?? schema.oneOf;
    if (forms !== undefined) {
      const others = forms.filter((s) => !isNull(s));
      const nullable = others.length < forms.length;
      let type: string;
      if (others.length === 1 && others[0] !== undefined) type = this.type(others[0], hint);
      else {
        const members = others.map((form, i) => this.type(form, formHint(hint, form, i)));
        // A union of TypedDicts is named (an alias), so that its forms' names say what they are part of.
        const ofObjects = others.some((form) => this.bare(form).properties !== undefined);
        type = entry !== undefined || ofObjects ? this.alias(hint, 'Union', members, entry !== undefined) : `Union[${members.join(', ')}]`;
      }
      return nullable ? `Optional[${type}]` : type;
    }
    if ('const' in schema) return `Literal[${literal(schema.const)}]`;
    if (schema.enum !== undefined) {
      const values = schema.enum.map(literal);
      if (entry !== undefined) return this.alias(hint, 'Literal', values, true, this.valuesOf(entry, schema.enum));
      const type = `Literal[${values.join(', ')}]`;
      return this.byShape.get(type) ?? type;
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (types.length > 1) {
      const union = types.map((t) => this.type({ ...schema, type: t }, hint));
      return union.includes('None') ? `Optional[${union.filter((t) => t !== 'None').join(', ')}]` : `Union[${union.join(', ')}]`;
    }
    switch (types[0]) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${schema.items === undefined ? 'Any' : this.type(schema.items, hint)}]`;
      case 'object': {
        if (schema.properties !== undefined && Object.keys(schema.properties).length > 0)
          return this.typedDict(schema, hint, entry !== undefined);
        const values = schema.additionalProperties;
        if (typeof values !== 'object') return 'Dict[str, Any]';
        return `Dict[str, ${this.type(values, { name: `${hint.name}Value`, doc: `A value of \`\`${hint.name}\`\`.`, at: `${hint.at} {}` })}]`;
      }
      default:
        return 'Any';
    }
  }

  private typedDict(schema: JsonSchema, hint: Hint, named: boolean): string {
    const required = new Set(schema.required ?? []);
    const fields: Field[] = Object.entries(schema.properties ?? {}).map(([key, member]) => ({
      key,
      required: required.has(key),
      type: this.type(member, memberHint(hint, key, member)),
      ...(member.description !== undefined ? { description: member.description } : {}),
    }));
    const shape = JSON.stringify(fields.map((f) => [f.key, f.required, f.type]));
    const same = this.byShape.get(shape);
    if (same !== undefined && (!named || same === hint.name)) return same;
    this.claim(hint, shape);
    const mandatory = fields.filter((f) => f.required);
    const optional = fields.filter((f) => !f.required);
    // Class syntax where every key is a Python name, else the functional form (a key such as
    // `from`), as a private base of the class that carries the docstring.
    const bases: string[] = [];
    let own: Field[] = [];
    let total = true;
    if (mandatory.length > 0) {
      if (optional.length === 0 && mandatory.every((f) => isFieldName(f.key))) own = mandatory;
      else bases.push(this.base(`_${hint.name}Required`, mandatory, true));
    }
    if (optional.length > 0) {
      if (optional.every((f) => isFieldName(f.key))) {
        own = optional;
        total = false;
      } else bases.push(this.base(`_${hint.name}Optional`, optional, false));
    }
    this.blocks.push(classBlock(hint.name, bases.length > 0 ? bases : ['TypedDict'], hint.doc, own, total));
    return this.emitted(hint, shape);
  }

  private base(name: string, fields: Field[], total: boolean): string {
    if (fields.every((f) => isFieldName(f.key))) this.blocks.push(classBlock(name, ['TypedDict'], undefined, fields, total));
    else {
      const entries = fields.map((f) => `${literal(f.key)}: ${f.type}`);
      this.blocks.push(listed(`${name} = TypedDict(${literal(name)}, {`, entries, total ? '})' : '}, total=False)'));
    }
    return name;
  }

  /**
   * `Name = Literal[…]` or `Name = Union[…]` with its docstring, and the tuple of its values when
   * the table asks for one; a shape met before under another name keeps that name unless the table
   * names this place.
   */
  private alias(hint: Hint, form: 'Literal' | 'Union', items: string[], named: boolean, values = ''): string {
    const type = `${form}[${items.join(', ')}]`;
    const same = this.byShape.get(type);
    if (same !== undefined && (!named || same === hint.name)) return same;
    this.claim(hint, type);
    this.blocks.push([listed(`${hint.name} = ${form}[`, items, ']'), docstring(hint.doc), ...(values ? ['', values] : [])].join('\n'));
    return this.emitted(hint, type);
  }

  /** The tuple of a set's values, and the sets of some of them, as the table asks. */
  private valuesOf(entry: PythonName, values: unknown[]): string {
    const lines: string[] = [];
    if (entry.values !== undefined)
      lines.push(listed(`${entry.values.name}: Tuple[${entry.name}, ...] = (`, values.map(literal), ')'), docstring(entry.values.doc));
    for (const subset of entry.subsets ?? []) {
      const stray = subset.members.filter((member) => !values.includes(member));
      if (stray.length > 0) throw new Error(`${subset.name}: ${stray.join(', ')} not among ${entry.name} at ${entry.at}`);
      const members = values.filter((value) => subset.members.includes(value as string)).map(literal);
      lines.push('', listed(`${subset.name}: FrozenSet[${entry.name}] = frozenset({`, members, '})'), docstring(subset.doc));
    }
    return lines.join('\n');
  }

  private claim(hint: Hint, shape: string): void {
    const other = this.names.get(hint.name);
    if (other !== undefined && other.shape !== shape)
      throw new Error(
        `two shapes would be named ${hint.name} (at ${other.at} and at ${hint.at}): name one in scripts/python-client/names.ts`,
      );
  }

  private emitted(hint: Hint, shape: string): string {
    if (!this.byShape.has(shape)) this.byShape.set(shape, hint.name);
    this.names.set(hint.name, { shape, at: hint.at });
    return hint.name;
  }
}

function fieldLines(fields: Field[]): string[] {
  return fields.flatMap((f) => [`    ${f.key}: ${f.type}`, ...(f.description !== undefined ? [docstring(f.description, '    ')] : [])]);
}

function classBlock(name: string, bases: string[], doc: string | undefined, fields: Field[], total: boolean): string {
  const head = `class ${name}(${[...bases, ...(total ? [] : ['total=False'])].join(', ')}):`;
  const body = [...(doc ? [docstring(doc, '    '), ...(fields.length > 0 ? [''] : [])] : []), ...fieldLines(fields)];
  return [head, ...(body.length > 0 ? body : ['    pass'])].join('\n');
}

/** The hint of an object's member: `<Parent><Member>`, or for a list's items `<Parent><Item>`. */
function memberHint(parent: Hint, key: string, member: JsonSchema): Hint {
  const list = member.type === 'array';
  return {
    name: `${parent.name}${pascal(list ? singular(key) : key)}`,
    doc: list ? `One of the \`\`${key}\`\` of \`\`${parent.name}\`\`.` : `The \`\`${key}\`\` of \`\`${parent.name}\`\`.`,
    at: `${parent.at} ${key}${list ? ' []' : ''}`,
  };
}

/** The hint of one form of a union: named by the value its constant member takes, else by its place. */
function formHint(union: Hint, form: JsonSchema, index: number): Hint {
  const tag = Object.entries(form.properties ?? {}).find(([, member]) => typeof member.const === 'string');
  if (tag !== undefined)
    return {
      name: `${union.name}${pascal(String(tag[1].const))}`,
      doc: `\`\`${union.name}\`\` whose \`\`${tag[0]}\`\` is \`\`${String(tag[1].const)}\`\`.`,
      at: `${union.at} |${index}`,
    };
  return { name: `${union.name}Form${index + 1}`, doc: `One form of \`\`${union.name}\`\`.`, at: `${union.at} |${index}` };
}

/** Whether a body has members to type (an empty object, as most bodiless POSTs take, has none). */
function hasMembers(schema: JsonSchema, document: OpenApi): boolean {
  if (schema.$ref !== undefined) return hasMembers(dereference(document, schema.$ref).schema, document);
  if (schema.anyOf !== undefined || schema.oneOf !== undefined) return true;
  return Object.keys(schema.properties ?? {}).length > 0;
}
