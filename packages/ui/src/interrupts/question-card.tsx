import { type FormEvent, useId, useMemo, useState } from 'react';
import type { ChatLabels } from '../labels.js';
import type { InterruptCardProps } from './card-props.js';
import { CardSection } from './card-section.js';
import { answerOf, type FormField, formOf } from './schema-form.js';

/**
 * A question from the agent: free text, or a small form when its `responseSchema` is a
 * string/number/boolean/enum field or an object of them. Answer sends `{answer}`; Cancel
 * answers `cancelled`. A real `<form>`: Enter in a field submits it.
 */
export function QuestionCard(props: InterruptCardProps & { labels: ChatLabels }) {
  const { interrupt: i, labels } = props;
  const title = useId();
  const form = useMemo(() => formOf(i.responseSchema), [i.responseSchema]);
  const [values, setValues] = useState<ReadonlyMap<string, string | boolean>>(new Map());
  const [busy, setBusy] = useState(false);
  const set = (name: string, value: string | boolean) =>
    setValues(new Map(values).set(name, value));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const answer = answerOf(form, values);
    void Promise.resolve(props.onResolve(i.id, { answer })).finally(() => setBusy(false));
  };
  return (
    <CardSection
      id={i.id}
      kind="question"
      titleId={title}
      title={i.message ?? labels.questionTitle}
      className={props.className}
    >
      <form className="rc-interrupt__form" onSubmit={submit}>
        {form.fields.map((f) => (
          <Field key={f.name} field={f} value={values.get(f.name)} onChange={set} labels={labels} />
        ))}
        <div className="rc-interrupt__actions">
          <button type="submit" className="rc-button rc-button--primary" disabled={busy}>
            {labels.submitAnswer}
          </button>
          <button
            type="button"
            className="rc-button"
            disabled={busy}
            onClick={() => void props.onCancel(i.id)}
          >
            {labels.cancelInterrupt}
          </button>
        </div>
      </form>
    </CardSection>
  );
}

function Field(props: {
  field: FormField;
  value: string | boolean | undefined;
  onChange(name: string, value: string | boolean): void;
  labels: ChatLabels;
}) {
  const { field: f, value, onChange } = props;
  const id = useId();
  const label = f.label || props.labels.answerInput;
  const text = typeof value === 'string' ? value : '';
  if (f.kind === 'boolean') {
    return (
      <label className="rc-interrupt__check" htmlFor={id}>
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange(f.name, e.target.checked)}
        />
        {label}
      </label>
    );
  }
  const control =
    f.kind === 'choice' ? (
      <select
        id={id}
        className="rc-interrupt__input"
        value={text}
        required={f.required}
        onChange={(e) => onChange(f.name, e.target.value)}
      >
        <option value="" disabled>
          —
        </option>
        {f.choices.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    ) : (
      <input
        id={id}
        className="rc-interrupt__input"
        type={f.kind === 'text' ? 'text' : 'number'}
        step={f.kind === 'integer' ? 1 : 'any'}
        value={text}
        required={f.required}
        maxLength={f.maxLength}
        onChange={(e) => onChange(f.name, e.target.value)}
      />
    );
  return (
    <>
      <label className="rc-interrupt__field" htmlFor={id}>
        {label}
      </label>
      {control}
    </>
  );
}
