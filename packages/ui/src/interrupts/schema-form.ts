/**
 * The small subset of JSON Schema a question card turns into a form: a string (free text,
 * or an `enum` as a choice), a number or integer, a boolean, or an object of such fields.
 * Anything else is answered as free text.
 */
export interface FormField {
  /** The property name; '' for a schema that is itself one field. */
  name: string;
  /**
   * The field's label: the schema's `title`, else the property name; '' for a single field
   * (the card labels it with `answerInput`).
   */
  label: string;
  /**
   * The input it takes: free `text` (a string), a `number` or `integer`, a `boolean` (a
   * checkbox), or a `choice` among `choices` (a string `enum`).
   */
  kind: 'text' | 'number' | 'integer' | 'boolean' | 'choice';
  /** The values of a `choice` field (the first 50 of the `enum`); empty for the other kinds. */
  choices: readonly string[];
  /**
   * The schema requires it (a single field always is); an empty optional field is left
   * out of the answer.
   */
  required: boolean;
  /** A text field's `maxLength` from the schema; absent when it has none. */
  maxLength?: number;
}

/**
 * The form {@link formOf} reads from a question's `responseSchema`, and {@link answerOf}
 * turns back into the answer.
 */
export interface FormShape {
  /** `object`: the answer is an object of the fields; `single`: the one field's value. */
  shape: 'object' | 'single';
  /** The fields in the schema's order (at most 20); one field when `shape` is `single`. */
  fields: FormField[];
}

const MAX_FIELDS = 20;

function fieldOf(name: string, schema: unknown, required: boolean): FormField | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const s = schema as { type?: unknown; enum?: unknown; title?: unknown; maxLength?: unknown };
  const label = typeof s.title === 'string' ? s.title : name;
  const base = { name, label, required, choices: [] as string[] };
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string') && s.enum.length > 0) {
    return { ...base, kind: 'choice', choices: s.enum.slice(0, 50) as string[] };
  }
  if (s.type === 'string' || s.type === undefined) {
    return typeof s.maxLength === 'number'
      ? { ...base, kind: 'text', maxLength: s.maxLength }
      : { ...base, kind: 'text' };
  }
  if (s.type === 'number' || s.type === 'integer' || s.type === 'boolean') {
    return { ...base, kind: s.type };
  }
  return null;
}

/** The form for `schema`; a free-text field when it is missing or beyond the subset. */
export function formOf(schema: unknown): FormShape {
  const free: FormShape = {
    shape: 'single',
    fields: [{ name: '', label: '', kind: 'text', choices: [], required: true }],
  };
  if (typeof schema !== 'object' || schema === null) return free;
  const s = schema as { type?: unknown; properties?: unknown; required?: unknown };
  if (s.type === 'object' && typeof s.properties === 'object' && s.properties !== null) {
    const required = new Set(Array.isArray(s.required) ? s.required : []);
    const fields: FormField[] = [];
    for (const [name, prop] of Object.entries(s.properties).slice(0, MAX_FIELDS)) {
      const field = fieldOf(name, prop, required.has(name));
      if (!field) return free;
      fields.push(field);
    }
    return fields.length > 0 ? { shape: 'object', fields } : free;
  }
  const single = fieldOf('', schema, true);
  return single ? { shape: 'single', fields: [{ ...single, label: '' }] } : free;
}

/**
 * The form's values as the answer: typed per field (numbers as numbers), empty optional
 * fields left out.
 */
export function answerOf(form: FormShape, values: ReadonlyMap<string, string | boolean>): unknown {
  const typed = (f: FormField): unknown => {
    const v = values.get(f.name);
    if (f.kind === 'boolean') return v === true;
    const text = typeof v === 'string' ? v : '';
    if (f.kind === 'number' || f.kind === 'integer')
      return text.trim() === '' ? undefined : Number(text);
    return text;
  };
  if (form.shape === 'single') return typed(form.fields[0]!);
  // A field's name is the schema's (the model's) data: `fromEntries` defines own properties,
  // where `out[name] = v` would drop a field named `__proto__`.
  const entries: [string, unknown][] = [];
  for (const f of form.fields) {
    const v = typed(f);
    if (v === undefined || (v === '' && !f.required)) continue;
    entries.push([f.name, v]);
  }
  return Object.fromEntries(entries);
}
