// Guests are never lost (issue #47): a guest keeps the account, with every
// match and friend, by choosing a username and a password, or Google or
// Apple instead of the password. Offered on my matches once a match of
// theirs has ended, and in the settings.
import { api, el, form, link, say, session, show, t } from "./core.js";
import { identityFailed, providerButtons, providerName, usernameForm } from "./identity.js";

/// The card that registers the signed-in guest (`POST /v1/me/registration`).
/// Saved, it says so in its place and `redraw` draws the navigation again
/// (a registered player sees tournaments and friends). `providers`: the
/// sign-in providers offered, each a button that saves it with them.
export function keepAccountCard(redraw, providers = []) {
  const user = session.user();
  if (!user || !user.guest) return null;
  const card = form({ "data-keep-account": true }, async (data) => {
    const body = { username: data.get("username"), password: data.get("password") };
    if (data.get("email")) body.email = data.get("email");
    // The name the others know stays unless it was changed here.
    const name = (data.get("display_name") || "").trim();
    if (name && name !== user.display_name) body.display_name = name;
    session.save((await api("POST", "/v1/me/registration", body)).data);
    redraw();
    card.replaceWith(el("p", { class: "card", role: "status", "data-account-saved": true }, t("keep_account_saved")));
  }, el("h2", {}, t("keep_account")),
  el("p", {}, t("keep_account_why")),
  el("label", {}, t("username"), el("input", { name: "username", required: true, autocomplete: "username" })),
  el("label", {}, t("password"), el("input", { name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password" })),
  el("label", {}, t("keep_account_email"), el("input", { name: "email", type: "email", autocomplete: "email" })),
  el("label", {}, t("display_name"), el("input", { name: "display_name", value: user.display_name, autocomplete: "nickname" })),
  el("button", { type: "submit" }, t("keep_account_save")),
  providers.length ? el("p", {}, t("keep_account_or")) : null,
  // What was typed comes back with the provider's answer.
  providerButtons(providers, "save_with", "register", { extra: () => ({
    username: card.elements.username.value.trim(), display_name: card.elements.display_name.value.trim() }) }));
  return card;
}

/// Back from the provider with the identity a guest saves the account
/// with: the username (what the card had, if anything) is confirmed, and
/// the same account is registered, every match kept.
export function guestReturned(proof, flow, redraw) {
  const user = session.user();
  if (!user || !user.guest) return identityFailed(flow, "identity_failed");
  const provider = providerName(flow.provider);
  usernameForm(flow, async (data) => {
    const body = { username: String(data.get("username")).trim(), identity: proof };
    const name = String(data.get("display_name") || "").trim();
    if (name && name !== user.display_name) body.display_name = name;
    session.save((await api("POST", "/v1/me/registration", body)).data);
    redraw();
    show(el("section", { class: "card", role: "status", "data-account-saved": true },
      el("p", {}, say("keep_account_saved_identity", { provider })), el("p", {}, link("/", t("matches")))));
  }, { submit: "keep_account_save",
    more: [el("label", {}, t("display_name"), el("input", { name: "display_name", value: flow.display_name || user.display_name, autocomplete: "nickname" }))] });
}

/// Whether a guest is typing into the card (a list redrawn meanwhile
/// would lose it).
export const keepingAccount = () => Boolean(document.querySelector("[data-keep-account] input:focus"));
