/**
 * An endpoint's signing in the portal: how its requests are signed, and rotation, the new secret
 * shown once (the portal never reads a secret back).
 */
import { useState } from 'preact/hooks';
import { destinationOf, html, time } from './common.js';

/** A secret shown once: copied now or never, as the API does not give it again. */
function SecretOnce({ secret, onDone }) {
  const [copied, setCopied] = useState(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret.secret);
      setCopied('Copied.');
    } catch {
      setCopied('Select the secret and copy it.');
    }
  };
  return html`
    <div class="secret-once" role="status" data-testid="new-secret">
      <strong>${secret.title}</strong>
      <p>Copy it now: it is shown this once. The portal cannot show it again, only rotate it.</p>
      <div class="row">
        <code class="secret" data-testid="secret-value">${secret.secret}</code>
        <button type="button" class="secondary" onClick=${copy}>Copy</button>
        ${copied === undefined ? null : html`<span class="muted">${copied}</span>`}
      </div>
      ${secret.note === undefined ? null : html`<p class="muted small">${secret.note}</p>`}
      <button type="button" onClick=${onDone}>Done, I have copied it</button>
    </div>
  `;
}

/** How the endpoint's requests are signed, with rotation (the new secret shown once). */
export function Signing({ api, base, subscription, canRotate, canWrite, secret, onSecret, onSecretDone }) {
  const [state, setState] = useState({ busy: false });
  const signing = destinationOf(subscription)?.properties?.signing;
  const rotate = async () => {
    setState({ busy: true });
    try {
      const answer = await api('POST', `${base}/rotateSigningSecret`, {});
      const previous = (answer?.previousSecrets ?? []).map((entry) => time(entry.validUntil));
      const kept =
        previous.length === 0
          ? undefined
          : `Earlier secrets are still honoured until ${previous.join(', ')}.`;
      onSecret(
        answer?.secret === undefined
          ? { title: 'New public key (v1a): verify with it', secret: answer?.publicKey ?? '', note: kept }
          : { title: 'New signing secret', secret: answer.secret, note: kept },
      );
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error: error.message });
    }
  };
  return html`
    <div class="signing" data-testid="signing">
      <h4>Signing</h4>
      ${
        signing === undefined || signing === null
          ? html`<p class="muted">Requests to this endpoint are not signed.${canWrite ? ' Edit the endpoint to sign them.' : ''}</p>`
          : html`<p>
              Requests are signed (${signing.scheme === 'v1a' ? 'v1a, Ed25519' : 'v1, HMAC-SHA256'}) with a secret in use since
              ${' '}${time(signing.secretCreatedTime)}${
                (signing.previousSecretsValidUntil ?? []).length > 0
                  ? `; earlier secrets honoured until ${signing.previousSecretsValidUntil.map(time).join(', ')}`
                  : ''
              }.
            </p>`
      }
      ${secret === undefined ? null : html`<${SecretOnce} secret=${secret} onDone=${onSecretDone} />`}
      ${
        canRotate && signing !== undefined && signing !== null
          ? html`<div class="toolbar">
              <button type="button" class="secondary" disabled=${state.busy} onClick=${rotate}>
                ${state.busy ? 'Rotating…' : 'Rotate secret'}
              </button>
              <span class="muted small">A new secret; the current one stays honoured for 24 hours.</span>
              ${state.error === undefined ? null : html`<span class="error-inline" role="alert">${state.error}</span>`}
            </div>`
          : null
      }
    </div>
  `;
}
