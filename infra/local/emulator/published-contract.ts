import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { badRequest, EmulatorError, type FieldError } from './errors.js';

/**
 * The provider's contract as the emulator enforces it: request rules and scopes read from the
 * provider's published OpenAPI document (`cloud-api.openapi.json`, a copy of
 * `shared/reference/cloud-api.openapi.json`), corrected by DOCUMENT_OVERRIDES where our spec
 * documents say otherwise. Deliberately not derived from the bot's operations table: when the bot
 * gets a rule wrong, the emulator must disagree with it.
 */

type Json = Record<string, unknown>;
export type Access = 'public' | 'any-token' | 'scoped';

export interface PublishedOperation {
  /** `METHOD /path`, the way the documents' endpoint tables name an operation. */
  readonly signature: string;
  readonly method: string;
  readonly path: string;
  access: Access;
  scopes: string[];
  /** The document's `x-grant`; `unrestricted only` for every managed operation. */
  grant: string | undefined;
  /** Path and query parameters with their JSON types, for turning text into values. */
  readonly parameters: Map<string, { in: 'path' | 'query'; type: string | undefined }>;
  /**
   * Path parameters, query parameters and body fields side by side, as one JSON Schema object:
   * the request-side view (read-only fields dropped, `nullable` spelled as JSON Schema).
   */
  readonly input: Json & { properties: Record<string, Json>; required: string[] };
  /** Documents' overrides applied to this operation, for listing. */
  readonly overrides: string[];
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const METHODS = ['get', 'post', 'put', 'delete'] as const;

interface OpenApiDocument {
  paths: Record<string, Json>;
  components: Record<string, Record<string, Json>>;
}

function readDocument(name: string): OpenApiDocument {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as OpenApiDocument;
}

/**
 * The two published documents: the first (`cloud-api.openapi.json`) and the second, with the
 * operations people reach for in an incident (`cloud-api-more.openapi.json`, a copy of
 * `shared/reference/cloud-api-more.openapi.json`). Each stands alone: its `$ref`s point into itself.
 */
const DOCUMENTS: readonly OpenApiDocument[] = [
  readDocument('./cloud-api.openapi.json'),
  readDocument('./cloud-api-more.openapi.json'),
];

function refTarget(document: OpenApiDocument, ref: string): Json {
  let node: unknown = document;
  for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Json)[part];
  if (!node || typeof node !== 'object') throw new Error(`Unresolvable $ref ${ref}`);
  return node as Json;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Inlines `$ref`s, merges object `allOf`s, turns OpenAPI `nullable` into JSON Schema and drops
 * `readOnly` properties: the provider ignores them in requests, so they are no rule at all.
 */
function requestSide(document: OpenApiDocument, node: unknown, depth = 0): unknown {
  if (depth > 40) throw new Error('The published schema nests too deeply');
  if (Array.isArray(node)) return node.map((n) => requestSide(document, n, depth + 1));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string') {
    const { $ref, ...rest } = node;
    return requestSide(document, { ...refTarget(document, $ref), ...rest }, depth + 1);
  }
  let out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'description' || key === 'x-filterable') continue;
    out[key] =
      key === 'properties'
        ? mapValues(value, (v) => requestSide(document, v, depth + 1))
        : requestSide(document, value, depth + 1);
  }
  if (Array.isArray(out.allOf) && out.allOf.every(isObject)) {
    const branches = out.allOf as Json[];
    const { allOf: _, ...own } = out;
    out = branches.reduce<Json>((merged, branch) => mergeObjects(merged, branch), {});
    out = mergeObjects(out, own);
  }
  if (isObject(out.properties)) {
    const readOnly = Object.entries(out.properties)
      .filter(([, v]) => isObject(v) && v.readOnly === true)
      .map(([k]) => k);
    for (const key of readOnly) delete (out.properties as Json)[key];
    if (Array.isArray(out.required)) out.required = out.required.filter((r) => !readOnly.includes(String(r)));
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else out = { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function mapValues(value: unknown, fn: (v: unknown) => unknown): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fn(v)]));
}

/** A later branch's property keywords win, the way an `allOf` override marks a field read-only. */
function mergeObjects(a: Json, b: Json): Json {
  const properties: Json = { ...(isObject(a.properties) ? a.properties : {}) };
  for (const [key, value] of Object.entries(isObject(b.properties) ? b.properties : {})) {
    const before = properties[key];
    properties[key] = isObject(before) && isObject(value) ? { ...before, ...value } : value;
  }
  const required = [
    ...new Set([
      ...(Array.isArray(a.required) ? a.required : []),
      ...(Array.isArray(b.required) ? b.required : []),
    ]),
  ];
  return { ...a, ...b, type: 'object', properties, required };
}

function parameterOf(document: OpenApiDocument, raw: Json): Json {
  return typeof raw.$ref === 'string' ? refTarget(document, raw.$ref) : raw;
}

function readOperation(
  document: OpenApiDocument,
  path: string,
  method: (typeof METHODS)[number],
): PublishedOperation | undefined {
  const item = document.paths[path];
  const operation = item?.[method];
  if (!isObject(item) || !isObject(operation)) return undefined;
  const parameters: PublishedOperation['parameters'] = new Map();
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  const declared = [
    ...(Array.isArray(item.parameters) ? item.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ] as Json[];
  for (const raw of declared) {
    const parameter = parameterOf(document, raw);
    const name = String(parameter.name);
    const schema = requestSide(document, parameter.schema ?? {}) as Json;
    parameters.set(name, {
      in: parameter.in === 'path' ? 'path' : 'query',
      type: typeof schema.type === 'string' ? schema.type : undefined,
    });
    properties[name] = schema;
    if (parameter.required === true) required.push(name);
  }
  const body = isObject(operation.requestBody)
    ? (requestSide(document, (operation.requestBody.content as Json)['application/json']) as Json | undefined)
        ?.schema
    : undefined;
  let input: PublishedOperation['input'] = { type: 'object', properties, required };
  if (isObject(body)) {
    const merged = mergeObjects(body, { properties, required });
    input = merged as PublishedOperation['input'];
  }
  const security = Array.isArray(operation.security) ? (operation.security as Json[]) : undefined;
  const scopes = security?.flatMap((s) => (Array.isArray(s.oauth) ? (s.oauth as string[]) : [])) ?? [];
  return {
    signature: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase(),
    path,
    access: security === undefined ? 'public' : scopes.length > 0 ? 'scoped' : 'any-token',
    scopes,
    grant: typeof operation['x-grant'] === 'string' ? operation['x-grant'] : undefined,
    parameters,
    input,
    overrides: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Where the documents win

/** One documented rule that replaces or adds to the published one. */
export interface DocumentOverride {
  /** The operation, `METHOD /path`. */
  readonly at: string;
  /** The field it is about (dotted, `[]` for list items), when it is about one. */
  readonly field?: string;
  readonly why: string;
  readonly apply: (op: PublishedOperation) => void;
}

/** The schema of `field` inside the operation's flat input (`a.b`, `list[].c`). */
export function fieldSchema(op: PublishedOperation, field: string): Json {
  let node: Json = op.input;
  for (const part of field.split('.')) {
    const [name, ...items] = part.split('[]');
    if (!isObject(node.properties)) node.properties = {};
    const properties = node.properties as Record<string, Json>;
    const key = name ?? '';
    if (!isObject(properties[key])) properties[key] = {};
    node = properties[key] as Json;
    for (let i = 0; i < items.length; i++) {
      if (!isObject(node.items)) node.items = {};
      node = node.items as Json;
    }
  }
  return node;
}

function requireField(field: string) {
  return (op: PublishedOperation) => {
    const parts = field.split('.');
    const last = parts.pop() ?? field;
    const parent = parts.length === 0 ? op.input : fieldSchema(op, parts.join('.'));
    const required = Array.isArray(parent.required) ? (parent.required as string[]) : [];
    if (!required.includes(last)) parent.required = [...required, last];
    fieldSchema(op, field);
  };
}

/** Only these body fields (and the path's parameters) may be sent; any other is refused. */
function onlyFields(...fields: string[]) {
  return (op: PublishedOperation) => {
    for (const name of Object.keys(op.input.properties)) {
      if (!fields.includes(name) && !op.parameters.has(name)) delete op.input.properties[name];
    }
    op.input.additionalProperties = false;
  };
}

function refuseField(field: string) {
  return (op: PublishedOperation) => {
    op.input.properties[field] = false as unknown as Json;
  };
}

function unrestrictedOnly(op: PublishedOperation): void {
  op.grant = 'unrestricted only';
}

function constrain(field: string, rules: Json) {
  return (op: PublishedOperation) => {
    Object.assign(fieldSchema(op, field), rules);
  };
}

function dropKeyword(field: string, keyword: string) {
  return (op: PublishedOperation) => {
    delete fieldSchema(op, field)[keyword];
  };
}

function dropPattern(field: string) {
  return dropKeyword(field, 'pattern');
}

/** The field may also be null, whatever else its schema says. */
function allowNull(field: string) {
  return (op: PublishedOperation) => {
    const schema = fieldSchema(op, field);
    const own = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [own, { type: 'null' }];
  };
}

const NODE_LABEL_PATTERN = '^[a-zA-Z]((?!--|__|\\.\\.)[a-zA-Z0-9-_.])+$';

/** The field may also be an empty string, whatever else its schema says. */
function allowEmptyString(field: string) {
  return (op: PublishedOperation) => {
    const schema = fieldSchema(op, field);
    const own = { ...schema };
    for (const key of Object.keys(schema)) delete schema[key];
    schema.anyOf = [own, { type: 'string', maxLength: 0 }];
  };
}

/** The published volume label pattern with `*` for its `+`: one letter is a label too. */
const VOLUME_LABEL_PATTERN = '^[a-zA-Z]((?!--|__)[a-zA-Z0-9-_])*$';
const VOLUME_LABELS = ['POST /volumes', 'PUT /volumes/{volumeId}', 'POST /volumes/{volumeId}/clone'];

/** The operations that take a list of network interfaces. */
const INTERFACE_WRITES = [
  'POST /node/instances',
  'POST /node/instances/{nodeId}/configs',
  'PUT /node/instances/{nodeId}/configs/{configId}',
];

const DEVICE_SLOTS = ['sda', 'sdb', 'sdc', 'sdd', 'sde', 'sdf', 'sdg', 'sdh'] as const;
/** `sdh` is reserved during rescue (API-FACTS-MORE §2.5): RescueDevices has sda..sdg. */
const RESCUE_SLOTS = DEVICE_SLOTS.filter((slot) => slot !== 'sdh');
const CONFIG_WRITES = [
  'POST /node/instances/{nodeId}/configs',
  'PUT /node/instances/{nodeId}/configs/{configId}',
];

/**
 * An address the documents allow in a database's allow_list: a single IPv4 address or a CIDR
 * range. The published format, `ipv4/prefix_length`, wants the range form only.
 */
export const IPV4_ADDRESS_OR_RANGE_FORMAT = 'ipv4 address or ipv4/prefix_length';
const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4_ADDRESS_OR_RANGE = new RegExp(`^(${IPV4_OCTET}\\.){3}${IPV4_OCTET}(/(3[0-2]|[12]?[0-9]))?$`);

/** Database operations exist for both engines with the same rules. */
function bothEngines(override: Omit<DocumentOverride, 'at'> & { at: string }): DocumentOverride[] {
  return ['mysql', 'postgresql'].map((kind) => ({ ...override, at: override.at.replace('{kind}', kind) }));
}

export const DOCUMENT_OVERRIDES: readonly DocumentOverride[] = [
  {
    at: 'POST /profile/tfa-enable-confirm',
    field: 'tfa_code',
    why: 'profile document, 2FA row: confirming needs tfa_code (a current code); the schema lists it without requiring it',
    apply: requireField('tfa_code'),
  },
  {
    at: 'POST /profile/security-questions',
    field: 'security_questions',
    why: 'profile document, endpoint table and limits: exactly three answers; the schema requires nothing',
    apply: requireField('security_questions'),
  },
  {
    at: 'POST /profile/security-questions',
    field: 'security_questions',
    why: 'profile document, limits: exactly 3 answers, unique questions',
    apply: constrain('security_questions', { minItems: 3, maxItems: 3 }),
  },
  {
    at: 'POST /profile/security-questions',
    field: 'security_questions[].question_id',
    why: 'profile document: an answer is {question_id, response}',
    apply: requireField('security_questions[].question_id'),
  },
  {
    at: 'POST /profile/security-questions',
    field: 'security_questions[].response',
    why: 'profile document: an answer is {question_id, response}',
    apply: requireField('security_questions[].response'),
  },
  {
    at: 'GET /images',
    why: "compute document and the schema's prose: public images are listed without a token",
    apply: (op) => {
      op.access = 'public';
    },
  },
  {
    at: 'GET /images/{imageId}',
    why: "compute document and the schema's prose: a public image is shown without a token",
    apply: (op) => {
      op.access = 'public';
    },
  },
  {
    at: 'POST /node/instances',
    field: 'label',
    why: 'the published pattern has an unescaped `..` (any two characters), so it rejects every label longer than two',
    apply: constrain('label', { pattern: NODE_LABEL_PATTERN }),
  },
  {
    at: 'PUT /node/instances/{nodeId}',
    field: 'label',
    why: 'the published pattern has an unescaped `..` (any two characters), so it rejects every label longer than two',
    apply: constrain('label', { pattern: NODE_LABEL_PATTERN }),
  },
  {
    at: 'POST /node/instances/{nodeId}/configs',
    field: 'root_device',
    why: 'the published pattern is a prose list of characters, not a regular expression',
    apply: dropPattern('root_device'),
  },
  {
    at: 'PUT /node/instances/{nodeId}/configs/{configId}',
    field: 'root_device',
    why: 'the published pattern is a prose list of characters, not a regular expression',
    apply: dropPattern('root_device'),
  },
  {
    at: 'PUT /profile/sshkeys/{sshKeyId}',
    why: 'profile document, rule 7: only the label of an SSH key can change',
    apply: onlyFields('label'),
  },
  {
    at: 'PUT /profile/tokens/{tokenId}',
    why: 'profile document, rule 7: only the label of a token can change',
    apply: onlyFields('label'),
  },
  {
    at: 'PUT /managed/credentials/{credentialId}',
    why: 'managed document, rule 2: PUT changes only the label; username and password change through /update',
    apply: onlyFields('label'),
  },
  {
    at: 'PUT /node/instances/{nodeId}',
    field: 'metadata',
    why: 'compute document, node rule 6: user_data cannot be changed after provisioning',
    apply: refuseField('metadata'),
  },
  ...bothEngines({
    at: 'DELETE /databases/{kind}/instances/{instanceId}',
    why: 'compute document, database rule 2: only unrestricted users may delete a database (the schema grants read_write)',
    apply: unrestrictedOnly,
  }),
  ...bothEngines({
    at: 'POST /databases/{kind}/instances/{instanceId}/credentials/reset',
    why: 'compute document, database rule 2: only unrestricted users may reset credentials (the schema grants read_write)',
    apply: unrestrictedOnly,
  }),
  {
    at: 'POST /node/instances',
    field: 'interfaces',
    why: 'compute document, Interface: an empty interfaces array yields a default public interface only, so it is accepted',
    apply: dropKeyword('interfaces', 'minItems'),
  },
  {
    at: 'POST /node/instances/{nodeId}/configs',
    field: 'interfaces',
    why: 'compute document, Interface: an empty interfaces array yields a default public interface only, so it is accepted',
    apply: dropKeyword('interfaces', 'minItems'),
  },
  {
    at: 'PUT /node/instances/{nodeId}/configs/{configId}',
    field: 'interfaces',
    why: 'compute document, Interface: an empty interfaces array yields a default public interface only, so it is accepted',
    apply: dropKeyword('interfaces', 'minItems'),
  },
  {
    at: 'POST /node/instances',
    field: 'stackscript_data',
    why: 'compute document: at most 65535 characters as JSON (a document rule); the schema puts maxLength, a string keyword, on an object',
    apply: dropKeyword('stackscript_data', 'maxLength'),
  },
  // The ids first: a slot made nullable is wrapped in `anyOf`, and its ids are inside that.
  ...CONFIG_WRITES.flatMap((at) =>
    DEVICE_SLOTS.flatMap((slot) =>
      ['disk_id', 'volume_id'].map((id) => ({
        at,
        field: `devices.${slot}.${id}`,
        why: "compute document, configuration profile: a slot is {disk_id, volume_id} with one kind per slot, so the other id is null (the schema's prose: null when the other kind is assigned; its type allows only integers)",
        apply: allowNull(`devices.${slot}.${id}`),
      })),
    ),
  ),
  ...CONFIG_WRITES.flatMap((at) =>
    DEVICE_SLOTS.map((slot) => ({
      at,
      field: `devices.${slot}`,
      why: 'compute document, configuration profile: each slot sda..sdh is an object {disk_id, volume_id} or null; the schema allows only the object',
      apply: allowNull(`devices.${slot}`),
    })),
  ),
  ...VOLUME_LABELS.map((at) => ({
    at,
    field: 'label',
    why: 'compute document: a volume label is 1..32 characters; the published pattern needs at least two (its own minLength is 1)',
    apply: constrain('label', { pattern: VOLUME_LABEL_PATTERN }),
  })),
  ...INTERFACE_WRITES.flatMap((at) => [
    {
      at,
      field: 'interfaces[].label',
      why: 'compute document, Interface: for public and vpc the label is "empty string or null if included" in requests (a vlan still needs one: a document rule)',
      apply: allowEmptyString('interfaces[].label'),
    },
    {
      at,
      field: 'interfaces[].ipam_address',
      why: 'compute document, Interface: ipam_address is "empty string or null" in requests for public and vpc; like null, an empty string names no address (the schema allows only null)',
      apply: allowEmptyString('interfaces[].ipam_address'),
    },
    {
      at,
      field: 'interfaces[].ipv4',
      why: 'compute document, Interface: ipv4 is "only for vpc; null if none"; the schema allows only the object',
      apply: allowNull('interfaces[].ipv4'),
    },
  ]),
  ...['POST /databases/{kind}/instances', 'PUT /databases/{kind}/instances/{instanceId}'].flatMap((at) =>
    bothEngines({
      at,
      field: 'allow_list[]',
      why: 'compute document, managed database: allow_list holds "single IPs or CIDR ranges"; the published format `ipv4/prefix_length` wants a prefix on every entry (its own pattern and prose allow a single address)',
      apply: constrain('allow_list[]', { format: IPV4_ADDRESS_OR_RANGE_FORMAT }),
    }),
  ),
  ...bothEngines({
    at: 'POST /databases/{kind}/instances/{instanceId}/backups',
    field: 'label',
    why: 'compute document: a snapshot needs a label; the published request body is optional as a whole',
    apply: requireField('label'),
  }),
  ...['POST /node/instances/{nodeId}/rebuild', 'POST /node/instances/{nodeId}/disks'].map((at) => ({
    at,
    field: 'stackscript_data',
    why: 'API-FACTS-MORE §2.4 and §4.1: at most 65535 characters as JSON (a document rule); the schema puts maxLength, a string keyword, on an object',
    apply: dropKeyword('stackscript_data', 'maxLength'),
  })),
  {
    at: 'POST /node/instances/{nodeId}/reboot',
    field: 'config_id',
    why: 'API-FACTS-MORE §2.1: config_id "null or omitted" reboots into the last booted profile (the published example is null; its type allows only integers)',
    apply: allowNull('config_id'),
  },
  // The ids first: a slot made nullable is wrapped in `anyOf`, and its ids are inside that.
  ...RESCUE_SLOTS.flatMap((slot) =>
    ['disk_id', 'volume_id'].map((id) => ({
      at: 'POST /node/instances/{nodeId}/rescue',
      field: `devices.${slot}.${id}`,
      why: 'API-FACTS-MORE §2.5: a rescue slot holds a Device, one kind per slot, so the other id is null',
      apply: allowNull(`devices.${slot}.${id}`),
    })),
  ),
  ...RESCUE_SLOTS.map((slot) => ({
    at: 'POST /node/instances/{nodeId}/rescue',
    field: `devices.${slot}`,
    why: 'API-FACTS-MORE §2.5: each rescue slot sda..sdg "may be null"; the schema allows only the object',
    apply: allowNull(`devices.${slot}`),
  })),
];

/**
 * Applies a top-level field's override to a schema standing for that field elsewhere (the
 * response side of the same component), so a correction is written once.
 */
export function applyOverrideToFieldSchema(override: DocumentOverride, schema: Json): void {
  const field = override.field;
  if (field === undefined || /[.[]/.test(field)) {
    throw new Error(`Override at ${override.at} is not about one top-level field`);
  }
  const [method = '', path = ''] = override.at.split(' ');
  override.apply({
    signature: override.at,
    method,
    path,
    access: 'scoped',
    scopes: [],
    grant: undefined,
    parameters: new Map(),
    input: { type: 'object', properties: { [field]: schema }, required: [] },
    overrides: [],
  });
}

/**
 * Operations the documents name that the published schema does not: the documents delete a
 * managed credential with `DELETE`; the published `POST .../revoke` form is served as well.
 */
const DOCUMENT_ONLY: readonly { signature: string; like: string; why: string }[] = [
  {
    signature: 'DELETE /managed/credentials/{credentialId}',
    like: 'POST /managed/credentials/{credentialId}/revoke',
    why: 'profile and managed document: DELETE removes a managed credential; the schema calls it POST .../revoke',
  },
];

/** The bot's table names one operation of a pair; both forms are served by the same handler. */
export const SAME_OPERATION: ReadonlyMap<string, string> = new Map(
  DOCUMENT_ONLY.flatMap(({ signature, like }) => [
    [signature, like],
    [like, signature],
  ]),
);

function clone<T>(value: T): T {
  return structuredClone(value);
}

function buildContract(): Map<string, PublishedOperation> {
  const contract = new Map<string, PublishedOperation>();
  for (const document of DOCUMENTS) {
    for (const path of Object.keys(document.paths)) {
      for (const method of METHODS) {
        const op = readOperation(document, path, method);
        if (!op) continue;
        if (contract.has(op.signature)) throw new Error(`Both documents publish ${op.signature}`);
        contract.set(op.signature, op);
      }
    }
  }
  for (const { signature, like, why } of DOCUMENT_ONLY) {
    const template = contract.get(like);
    if (!template) throw new Error(`The published schema has no ${like}`);
    const [method = '', path = ''] = signature.split(' ');
    contract.set(signature, { ...clone(template), signature, method, path, overrides: [why] });
  }
  for (const override of DOCUMENT_OVERRIDES) {
    const op = contract.get(override.at);
    if (!op) throw new Error(`Override for an operation the contract lacks: ${override.at}`);
    override.apply(op);
    op.overrides.push(override.why);
  }
  return contract;
}

export const PUBLISHED_CONTRACT: ReadonlyMap<string, PublishedOperation> = buildContract();

// ---------------------------------------------------------------------------------------------
// Validation

const ajv = new Ajv({ strict: false, allErrors: true, verbose: true, logger: false, coerceTypes: false });
addFormats(ajv);
// The documents: times are UTC "with no zone suffix in samples".
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/i);
ajv.addFormat('url', /^[a-z][a-z0-9+.-]*:\/\/\S+$/i);
ajv.addFormat('oauth-scope', /^\S+( \S+)*$/);
ajv.addFormat('ip/netmask', /^\S+\/\d{1,3}$/);
ajv.addFormat('ipv4/prefix_length', /^\S+\/\d{1,2}$/);
ajv.addFormat(IPV4_ADDRESS_OR_RANGE_FORMAT, IPV4_ADDRESS_OR_RANGE);

const validators = new Map<string, ValidateFunction>();

function validatorOf(op: PublishedOperation): ValidateFunction {
  let validate = validators.get(op.signature);
  if (!validate) {
    validate = ajv.compile(op.input);
    validators.set(op.signature, validate);
  }
  return validate;
}

function fieldOf(error: ErrorObject): string | undefined {
  const base = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') base.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') base.push(String(error.params.additionalProperty));
  return base.length > 0 ? base.join('.') : undefined;
}

function reasonOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'false schema':
      return 'is not a known field';
    case 'minLength':
      return `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'minimum':
    case 'maximum': {
      const bounds = error.parentSchema as Json | undefined;
      if (typeof bounds?.minimum === 'number' && typeof bounds.maximum === 'number') {
        return `must be between ${bounds.minimum} and ${bounds.maximum}`;
      }
      return `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p.limit)}`;
    }
    case 'minItems':
      return `must have at least ${String(p.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} items`;
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `must be ${String(p.type).replace(',', ' or ')}`;
    default:
      return error.message ?? 'is invalid';
  }
}

/** Field errors in the API's `{field, reason}` shape, one per field, most specific first. */
export function publishedErrors(op: PublishedOperation, input: unknown): FieldError[] {
  const validate = validatorOf(op);
  if (validate(input)) return [];
  const errors = (validate.errors ?? []).filter(
    (e) => !['anyOf', 'oneOf', 'allOf', 'if'].includes(e.keyword),
  );
  const byField = new Map<string, FieldError>();
  for (const error of errors.length > 0 ? errors : (validate.errors ?? [])) {
    const field = fieldOf(error);
    const key = field ?? '';
    if (byField.has(key)) continue;
    byField.set(key, field === undefined ? { reason: reasonOf(error) } : { field, reason: reasonOf(error) });
  }
  return [...byField.values()];
}

function convertParameter(type: string | undefined, raw: string): unknown {
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

export interface RawRequest {
  pathParams: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when there was none. */
  body: unknown;
}

/**
 * The operation's flat input (path parameters, query parameters and body fields side by side),
 * checked against the published rules; 400 with every field error when it breaks one.
 */
export function parsePublishedInput(op: PublishedOperation, raw: RawRequest): Record<string, unknown> {
  if (raw.body !== undefined && !isObject(raw.body)) {
    throw badRequest('The request body must be a JSON object');
  }
  const flat: Record<string, unknown> = { ...(raw.body ?? {}) };
  for (const [name, parameter] of op.parameters) {
    if (parameter.in !== 'query') continue;
    const value = raw.query.get(name);
    if (value !== null) flat[name] = convertParameter(parameter.type, value);
  }
  for (const [name, value] of Object.entries(raw.pathParams)) {
    flat[name] = convertParameter(op.parameters.get(name)?.type, value);
  }
  const errors = publishedErrors(op, flat);
  if (errors.length > 0) throw new EmulatorError(400, errors);
  return flat;
}
