// zod → CustomResourceDefinition. zod's OpenAPI 3.0 output is close to what the apiserver wants;
// `structural` removes the rest of the distance and refuses what has no structural equivalent, so a
// schema that would be rejected (or silently pruned) fails here, at generation time.
import { stringify } from 'yaml';
import { z } from 'zod';
import { category, group, version } from './constants.ts';
import type { KindDefinition } from './fields.ts';
import { kinds } from './kinds.ts';

export type JsonSchema = { [key: string]: unknown };

/** Keys first in this order, then the rest as zod wrote them: readable, stable YAML. */
const keyOrder = ['description', 'type', 'format', 'enum', 'default', 'nullable'];

const unsupported = ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'const', 'prefixItems', 'patternProperties'];

function isEmptySchema(value: unknown): boolean {
  return value === true || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/** Rewrites one zod JSON Schema node (and its children) into a structural OpenAPI v3 schema. */
export function structural(node: JsonSchema, path = ''): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (unsupported.includes(key))
      throw new Error(`${path || '<root>'}: "${key}" has no structural equivalent`);
    switch (key) {
      case '$schema':
      case 'propertyNames': // map keys are strings in Kubernetes anyway
        break;
      case 'additionalProperties':
        // false (strict object) is the apiserver's default: unknown fields are pruned or rejected.
        if (value === false) break;
        // {} (loose object, record of unknown): keep whatever is written.
        if (isEmptySchema(value)) out['x-kubernetes-preserve-unknown-fields'] = true;
        else out[key] = structural(value as JsonSchema, `${path}.*`);
        break;
      case 'properties':
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, JsonSchema>).map(([name, child]) => [
            name,
            structural(child, `${path}.${name}`),
          ]),
        );
        break;
      case 'items':
        out[key] = structural(value as JsonSchema, `${path}[]`);
        break;
      case 'minimum':
      case 'maximum':
        // z.int() bounds itself to the safe integers; the apiserver's int64 needs no such bound.
        if (Math.abs(value as number) !== Number.MAX_SAFE_INTEGER) out[key] = value;
        break;
      case 'pattern':
        // zod spells formats (uuid, date-time) out as regexes the apiserver's RE2 may not parse;
        // the apiserver checks the format itself.
        if (!('format' in node)) out[key] = value;
        break;
      default:
        out[key] = value;
    }
  }
  if (!('type' in out) && !out['x-kubernetes-preserve-unknown-fields']) {
    throw new Error(`${path || '<root>'}: every schema needs a type`);
  }
  const rank = (key: string) => (keyOrder.includes(key) ? keyOrder.indexOf(key) : keyOrder.length);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => rank(a) - rank(b)));
}

export function openApiSchema(schema: z.ZodType): JsonSchema {
  // io "input": fields with a default are optional to the writer; the apiserver fills them in.
  return structural(
    z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', reused: 'inline' }) as JsonSchema,
  );
}

function resourceSchema(def: KindDefinition): JsonSchema {
  const body = openApiSchema(z.strictObject({ spec: def.spec, status: def.status.optional() }));
  const properties = body.properties as Record<string, JsonSchema>;
  // A resource the operator has not looked at yet reads `status: {}`, not no status: a health check
  // (Flux's healthCheckExprs) can then tell "no conditions yet" (in progress) from an error.
  const { description, type, ...status } = properties.status as JsonSchema;
  properties.status = { description, type, default: {}, ...status };
  const typeMeta = (what: string, link: string) => ({
    description: `${what} More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#${link}`,
    type: 'string',
  });
  return {
    description: def.description,
    type: 'object',
    properties: {
      apiVersion: typeMeta('Versioned schema of this representation of an object.', 'resources'),
      kind: typeMeta('REST resource this object represents.', 'types-kinds'),
      // The apiserver refuses a description here (only name/generateName may be constrained);
      // kubectl explain shows ObjectMeta's own docs.
      metadata: { type: 'object' },
      ...properties,
    },
    ...(body.required ? { required: body.required } : {}),
    ...(def.rules.length > 0 ? { 'x-kubernetes-validations': def.rules } : {}),
  };
}

export function customResourceDefinition(def: KindDefinition) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${def.plural}.${group}`,
      labels: { 'app.kubernetes.io/name': 'agent-deploy-operator', 'app.kubernetes.io/component': 'crd' },
    },
    spec: {
      group,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: [...def.shortNames],
        categories: [category],
      },
      scope: def.scope,
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [...def.printerColumns],
          schema: { openAPIV3Schema: resourceSchema(def) },
        },
      ],
    },
  };
}

export function crdDocuments() {
  return kinds.map(customResourceDefinition);
}

const header = '# Generated from src/api by `agent-deploy crds --write`. Do not edit.\n';

function toYaml(doc: object): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** All CRDs as one multi-document YAML stream. */
export function crdsYaml(): string {
  return header + crdDocuments().map(toYaml).join('---\n');
}

/** The contents of crds/: one file per kind, named by plural, and a kustomization listing them. */
export function crdFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const doc of crdDocuments()) files.set(`${doc.spec.names.plural}.yaml`, header + toYaml(doc));
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [...files.keys()],
  };
  files.set('kustomization.yaml', header + toYaml(kustomization));
  return files;
}
