/**
 * The fields that ask for an e-mail or a password, as every form shows them: log in, sign up,
 * the password change (and any other form that asks for a password). The `autocomplete`
 * values tell password managers which password to fill in (`current-password`) and where
 * to offer a new one (`new-password`).
 */
import type { FC } from 'hono/jsx';
import { Field } from '../layout/layout.tsx';

/** The e-mail address that names an owner's account. */
export const EmailField: FC<{ value?: string | undefined; error?: string[] | undefined }> = ({
  value,
  error,
}) => (
  <Field label="E-mail" name="email" error={error}>
    <input
      id="email"
      name="email"
      type="email"
      autocomplete="username"
      required
      value={value ?? ''}
    />
  </Field>
);

/** A required password; `minLength` is set where a new password is chosen. */
export const PasswordField: FC<{
  label: string;
  name: string;
  autocomplete: 'current-password' | 'new-password';
  minLength?: number;
  hint?: string;
  error?: string[] | undefined;
}> = ({ label, name, autocomplete, minLength, hint, error }) => (
  <Field label={label} name={name} hint={hint} error={error}>
    <input
      id={name}
      name={name}
      type="password"
      autocomplete={autocomplete}
      required
      minlength={minLength}
    />
  </Field>
);

/** An API key shown once, with a button that copies it. */
export const ShownApiKey: FC<{ apiKey: string }> = ({ apiKey }) => (
  <>
    <pre id="api-key">{apiKey}</pre>
    <button type="button" class="secondary" data-copy="api-key">
      Copy
    </button>
  </>
);
