/** Renders a form read from the OpenAPI schemas (schema-fields.ts): one labelled control per parameter. */
import { type Field, type Group, getAt, parseInput, setAt, type Values } from '../schema-fields.ts';

const idOf = (path: string[]) => `opt-${path.join('-')}`;

function Help({ field }: { field: Field | Group }) {
  return field.description ? (
    <span class="help" id={`${idOf(field.path)}-help`}>
      {field.description}
    </span>
  ) : null;
}

function Control(props: { field: Field; values: Values; onChange: (values: Values) => void }) {
  const { field, values, onChange } = props;
  const id = idOf(field.path);
  const current = getAt(values, field.path);
  const describedBy = field.description ? `${id}-help` : undefined;
  const set = (raw: string) => onChange(setAt(values, field.path, parseInput(field, raw)));
  if (field.kind === 'boolean') {
    const value = current === undefined ? '' : String(current);
    return (
      <select
        id={id}
        aria-describedby={describedBy}
        value={value}
        onChange={(e) => {
          const raw = e.currentTarget.value;
          onChange(setAt(values, field.path, raw === '' ? undefined : raw === 'true'));
        }}
      >
        <option value="">Default{field.default === undefined ? '' : ` (${String(field.default)})`}</option>
        <option value="true">Yes</option>
        <option value="false">No</option>
      </select>
    );
  }
  if (field.kind === 'enum') {
    return (
      <select
        id={id}
        aria-describedby={describedBy}
        value={current === undefined ? '' : String(current)}
        onChange={(e) => set(e.currentTarget.value)}
      >
        <option value="">Default{field.default === undefined ? '' : ` (${String(field.default)})`}</option>
        {field.options?.map((option) => (
          <option key={String(option)} value={String(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  }
  const numeric = field.kind === 'integer' || field.kind === 'number';
  const listId = field.kind === 'choice-or-number' ? `${id}-choices` : undefined;
  return (
    <>
      <input
        id={id}
        type={numeric ? 'number' : 'text'}
        inputMode={numeric ? 'decimal' : undefined}
        min={field.minimum}
        max={field.maximum}
        step={field.kind === 'integer' ? 1 : numeric ? 'any' : undefined}
        maxLength={field.maxLength}
        list={listId}
        autocomplete="off"
        aria-describedby={describedBy}
        placeholder={field.default === undefined ? '' : `Default ${String(field.default)}`}
        value={current === undefined ? '' : String(current)}
        onChange={(e) => set(e.currentTarget.value)}
      />
      {listId && (
        <datalist id={listId}>
          {field.options?.map((option) => (
            <option key={String(option)} value={String(option)} />
          ))}
        </datalist>
      )}
    </>
  );
}

export function SchemaForm(props: { group: Group; values: Values; onChange: (values: Values) => void }) {
  const { group, values, onChange } = props;
  return (
    <div class="schema-form">
      {group.children.map((child) =>
        child.type === 'group' ? (
          <fieldset key={child.path.join('.')}>
            <legend>{child.label}</legend>
            <Help field={child} />
            <SchemaForm group={child} values={values} onChange={onChange} />
          </fieldset>
        ) : (
          <div class="field" key={child.path.join('.')}>
            <label for={idOf(child.path)}>{child.label}</label>
            <Control field={child} values={values} onChange={onChange} />
            <Help field={child} />
          </div>
        ),
      )}
    </div>
  );
}
