// Guests are never lost (issue #47): a guest keeps the account, with every
// match and friend, by choosing a username and a password. Offered on my
// matches once a match of theirs has ended, and in the settings.
import { api, el, form, session, t } from "./core.js";

/// The card that registers the signed-in guest (`POST /v1/me/registration`).
/// Saved, it says so in its place and `redraw` draws the navigation again
/// (a registered player sees tournaments and friends).
export function keepAccountCard(redraw) {
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
  el("button", { type: "submit" }, t("keep_account_save")));
  return card;
}

/// Whether a guest is typing into the card (a list redrawn meanwhile
/// would lose it).
export const keepingAccount = () => Boolean(document.querySelector("[data-keep-account] input:focus"));
