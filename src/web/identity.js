// Signing in with Google and Apple (issue #47, item 5) by the OpenID
// Connect redirect: the page loads no script of theirs (the CSP allows our
// own only). A button asks the service for a nonce, keeps what the return
// needs in this tab's sessionStorage, and sends the browser to the
// provider, which sends it back to /signin/callback with an `id_token` in
// the fragment (never seen by a server log or a Referer). What the token
// is for (signing in, a guest saving the account, linking it in settings,
// confirming a deletion) rides along as the flow's purpose.
import { api, browserZone, el, form, language, say, show, t } from "./core.js";

const KEPT = "identity_flow";

/// A provider's name as people know it, in every language.
export const providerName = (provider) => ({ google: "Google", apple: "Apple" })[provider] || provider;

let offered = null;

/// The providers this service offers (`GET /v1/sign-in-providers`), read
/// once a page load; none when it cannot be read (offline: no buttons).
export function signInProviders() {
  if (!offered) {
    offered = api("GET", "/v1/sign-in-providers").then((r) => r.data.providers, () => {
      offered = null;
      return [];
    });
  }
  return offered;
}

function randomState() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/// Send the browser to `provider` (an entry of `signInProviders`) for an
/// `id_token` to use for `purpose`; `extra` comes back with it (an
/// invitation to join once signed in).
export async function startIdentity(provider, purpose, extra = {}) {
  const { nonce } = (await api("POST", "/v1/sessions/nonce")).data;
  const state = randomState();
  const back = location.pathname + location.search;
  sessionStorage.setItem(KEPT, JSON.stringify(Object.assign({ nonce, state, purpose, provider: provider.provider, back }, extra)));
  const params = new URLSearchParams({
    client_id: provider.client_id,
    redirect_uri: location.origin + "/signin/callback",
    response_mode: "fragment",
    nonce,
    state,
  });
  // Google hands an id_token alone to a page; Apple answers a page only
  // with a code beside it, and in the fragment only when no scope is
  // asked (it would post the form to a server otherwise).
  if (provider.provider === "apple") params.set("response_type", "code id_token");
  else {
    params.set("response_type", "id_token");
    params.set("scope", "openid email");
  }
  location.assign(provider.authorize_url + (provider.authorize_url.includes("?") ? "&" : "?") + params);
}

/// A button per provider offered that starts `purpose` with it. `extra()`
/// is kept for the return; `check()` may stop it first (a box to tick).
export function providerButtons(providers, label, purpose, { extra = () => ({}), check = () => true, cls = "secondary" } = {}) {
  return providers.map((p) => el("button", { type: "button", class: cls + " provider", "data-provider": p.provider,
    on: { click: async (event) => {
      if (!check()) return;
      const button = event.currentTarget;
      button.disabled = true;
      try { await startIdentity(p, purpose, extra()); } catch (_) { button.disabled = false; }
    } } }, say(label, { provider: providerName(p.provider) })));
}

/// What the provider sent back to /signin/callback, with the flow kept
/// for it: `{proof, flow}` for the page that owns `flow.purpose`
/// (app.js), or null once the page has said why not. The token is taken
/// out of the address at once; the flow is used once.
export function identityReturned() {
  const answer = new URLSearchParams(location.hash.replace(/^#/, ""));
  history.replaceState(null, "", "/signin/callback");
  let flow = null;
  try { flow = JSON.parse(sessionStorage.getItem(KEPT)); } catch (_) { /* none kept */ }
  sessionStorage.removeItem(KEPT);
  // Another tab's flow, an old link, or a forged answer: start again.
  if (!flow || answer.get("state") !== flow.state) {
    identityFailed(null, "identity_expired");
    return null;
  }
  const token = answer.get("id_token");
  if (!token) {
    identityFailed(flow, "identity_failed");
    return null;
  }
  return { proof: { provider: flow.provider, id_token: token, nonce: flow.nonce }, flow };
}

/// Why the sign-in did not finish (and the service's words for it, if it
/// refused), and the way back to where it started.
export function identityFailed(flow, key, error) {
  const back = (flow && flow.back) || "/signin";
  show(el("div", { class: "card", role: "alert", "data-identity-failed": true },
    el("p", {}, say(key, { provider: providerName(flow && flow.provider) })),
    error ? el("p", { class: "muted" }, error.message) : null,
    el("a", { href: back, "data-link": true, class: "button" }, t("try_again"))));
}

/// The username a new account (or a guest saving theirs) signs in with:
/// asked once the provider has vouched for the person. `then(data)`
/// sends it; a refusal (taken, a look-alike) is said beside the field.
export function usernameForm(flow, then, { more = [], submit = "create_account" } = {}) {
  const provider = providerName(flow.provider);
  // What a guest typed into the card before leaving for the provider.
  const typed = flow.username || "";
  show(form({ "data-choose-username": true }, then,
    el("h2", {}, t("choose_username")),
    el("p", {}, say("choose_username_why", { provider })),
    el("label", {}, t("username"), el("input", { name: "username", required: true, autocomplete: "username", value: typed })),
    ...more,
    el("button", { type: "submit" }, t(submit))));
}

/// Signing in (or up) with a provider: an account that has the identity
/// is signed in; an identity nobody has asks for a username first and
/// creates the account with the same token and nonce.
export async function signInWithIdentity(proof, flow, done) {
  let reply = null;
  try {
    reply = (await api("POST", "/v1/sessions/identity", proof)).data;
  } catch (error) {
    if (!error.problem || error.problem.code !== "identity_unknown") return identityFailed(flow, "identity_failed", error);
  }
  if (reply) return done(reply);
  usernameForm(flow, async (data) => {
    const body = Object.assign({ username: String(data.get("username")).trim(), locale: language(), time_zone: browserZone() }, proof);
    await done((await api("POST", "/v1/sessions/identity", body)).data);
  });
}
