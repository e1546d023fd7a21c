// The account's own settings of issue #47: the devices signed in, the
// ways to sign in (password, Google, Apple), downloading my data and
// deleting the account; and the public page that says what a deletion
// erases and keeps (/account-deletion, linked from the app stores).
import { api, el, form, link, local, replace, saveButton, say, session, show, t } from "./core.js";
import { identityFailed, providerButtons, providerName, signInProviders } from "./identity.js";

/// What came back from a provider for settings (linked, or refused),
/// said once on the settings page it returns to.
let note = null;

/// The settings page's cards of this module for the account `me`.
export async function accountCards(me, redraw) {
  const [sessions, identities, providers, apps, platforms] = await Promise.all([
    me.guest ? null : api("GET", "/v1/me/sessions").then((r) => r.data.sessions),
    me.guest ? null : api("GET", "/v1/me/identities").then((r) => r.data),
    signInProviders(),
    // The phone apps' card is left out, not the page, when these fail.
    api("GET", "/v1/devices").then((r) => r.data.devices, () => null),
    api("GET", "/v1/push/platforms").then((r) => r.data, () => null),
  ]);
  const told = note;
  note = null;
  return [
    sessions ? devicesCard(sessions) : null,
    appsCard(apps, platforms),
    identities ? methodsCard(identities, providers, told) : null,
    myDataCard(),
    deleteCard(me, identities, providers, redraw),
  ];
}

/// A card's own status line: what its last action did, read out where it
/// happened (the page's top is far away on a phone).
const statusLine = () => el("p", { class: "muted", role: "status" });

/// Every session of the account by its device (issue #47, item 8): this
/// one marked, the others signed out in one tap.
function devicesCard(sessions) {
  const said = statusLine();
  const row = (s) => {
    const item = el("li", { "data-session": s.id, "data-current": s.current ? "yes" : "no" },
      el("strong", {}, s.device || t("unknown_device")),
      s.current ? el("span", { class: "this-device" }, " · " + t("this_device")) : null,
      el("br"), el("span", { class: "muted" }, t("last_active") + ": " + local(s.last_active_at)),
      s.current ? null : el("button", { type: "button", class: "secondary", "data-action": "sign_out_device", on: { click: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          await api("DELETE", "/v1/me/sessions/" + s.id);
          item.remove();
          said.textContent = t("device_signed_out");
        } catch (error) {
          button.disabled = false;
          said.textContent = t("error") + ": " + error.message;
        }
      } } }, t("sign_out_device")));
    return item;
  };
  return el("section", { class: "card", "data-devices": true }, el("h2", {}, t("devices")),
    el("p", { class: "muted" }, t("devices_why")), el("ul", { class: "devices" }, sessions.map(row)), said);
}

/// The native apps that get my notifications (issue #51): each phone by
/// its platform and language, its notifications stopped in a tap. Shown
/// when the service pushes to an app, or when a device is left over.
function appsCard(apps, platforms) {
  if (!apps || !platforms || (!apps.length && !platforms.ios && !platforms.android)) return null;
  const said = statusLine();
  const row = (d) => {
    const item = el("li", { "data-app-device": d.id, "data-platform": d.platform },
      el("strong", {}, t("platform_" + d.platform)),
      el("br"), el("span", { class: "muted" }, t("registered") + ": " + local(d.registered_at) + (d.locale ? " · " + d.locale : "")),
      el("button", { type: "button", class: "secondary", "data-action": "remove_app_device", on: { click: async (event) => {
        const button = event.currentTarget;
        button.disabled = true;
        try {
          await api("DELETE", "/v1/devices/" + d.id);
          item.remove();
          said.textContent = t("app_device_removed");
        } catch (error) {
          button.disabled = false;
          said.textContent = t("error") + ": " + error.message;
        }
      } } }, t("app_device_remove")));
    return item;
  };
  // Only where a phone app signed in: a web player has no app to open.
  if (!apps.length) return null;
  return el("section", { class: "card", "data-app-devices": true }, el("h2", {}, t("app_devices")),
    el("p", { class: "muted" }, t(apps.length ? "app_devices_why" : "app_devices_none")),
    apps.length ? el("ul", { class: "devices" }, apps.map(row)) : null, said);
}

/// The ways in (issue #47, item 5): the password, each identity linked
/// (unlinked in a tap, unless it is the last way in: the service says
/// 409 and the card says why), and a button for each provider not linked.
function methodsCard(mine, providers, told) {
  const linked = new Set(mine.identities.map((i) => i.provider));
  const unlinkable = providers.filter((p) => !linked.has(p.provider));
  // Nothing to link and nothing linked: the password is all there is.
  if (!mine.identities.length && !unlinkable.length) return null;
  const said = el("p", { class: told && told.refused ? "error" : "muted", role: told && told.refused ? "alert" : "status" }, told ? told.text : "");
  const row = (i) => {
    const item = el("li", { "data-identity": i.provider },
      el("strong", {}, providerName(i.provider)), i.email ? " · " + i.email : "",
      el("br"), el("span", { class: "muted" }, t("linked") + ": " + local(i.linked_at)),
      el("button", { type: "button", class: "secondary", "data-action": "unlink", "data-provider": i.provider, on: { click: async () => {
        const name = providerName(i.provider);
        try {
          await api("DELETE", "/v1/me/identities/" + i.provider);
          note = { text: say("identity_unlinked", { provider: name }) };
          replace("/settings");
        } catch (error) {
          said.className = "error";
          said.textContent = error.status === 409 ? t("unlink_refused") : t("error") + ": " + error.message;
        }
      } } }, t("unlink")));
    return item;
  };
  return el("section", { class: "card", "data-sign-in-methods": true }, el("h2", {}, t("sign_in_methods")),
    el("ul", { class: "methods" }, mine.has_password ? el("li", { "data-method": "password" }, el("strong", {}, t("method_password"))) : null,
      mine.identities.map(row)),
    providerButtons(unlinkable, "link_provider", "link"), said);
}

/// Back from the provider with an identity to link. A new way in is
/// handed only to whoever proves again who they are: the service asks
/// for the password (403) when this session signed in over 10 minutes
/// ago, and this page asks for it then; an account without a password
/// signs in again first.
export async function linkReturned(proof, flow) {
  const provider = providerName(flow.provider);
  const linked = () => {
    note = { text: say("identity_linked", { provider }) };
    replace("/settings");
  };
  const refused = (error) => {
    note = { refused: true, text: error.status === 409 ? say("identity_taken", { provider }) : t("error") + ": " + error.message };
    replace("/settings");
  };
  try {
    await api("POST", "/v1/me/identities", proof);
    return linked();
  } catch (error) {
    if (error.status !== 403) return refused(error);
  }
  const mine = await api("GET", "/v1/me/identities").then((r) => r.data, () => null);
  if (!mine || !mine.has_password) return identityFailed(flow, "link_sign_in_again");
  show(form({ "data-link-confirm": true }, async (data) => {
    try {
      await api("POST", "/v1/me/identities", Object.assign({ password: String(data.get("password")) }, proof));
    } catch (error) {
      if (error.status === 403) throw new Error(t("wrong_password"));
      return refused(error);
    }
    linked();
  },
  el("h2", {}, t("link_confirm")),
  el("p", {}, say("link_confirm_why", { provider })),
  el("label", {}, t("password"), el("input", { name: "password", type: "password", required: true, autocomplete: "current-password" })),
  el("button", { type: "submit" }, say("link_provider", { provider }))));
}

/// Everything the service keeps about me as a file (issue #47, item 7):
/// read with the access token (a link could not carry it) and saved
/// under the name the service gives it.
function myDataCard() {
  const { button, said } = saveButton(t("download_my_data"), "/v1/me/export", "application/json", "posthorn.json", { "data-action": "download_my_data" });
  return el("section", { class: "card", "data-my-data": true }, el("h2", {}, t("my_data")),
    el("p", { class: "muted" }, t("my_data_why")), button, el("p", {}, said));
}

/// Deleting the account (issue #47, item 6), confirmed as the service
/// asks: the password; with none, a fresh sign-in at a linked provider;
/// a guest only ticks the box (their session is all they have).
function deleteCard(me, mine, providers, redraw) {
  const password = !me.guest && mine.has_password;
  const linked = me.guest || password ? [] : providers.filter((p) => mine.identities.some((i) => i.provider === p.provider));
  const card = form({ "data-delete-account": true }, async (data) => {
    try {
      await api("POST", "/v1/me/deletion", password ? { password: data.get("confirm_password") } : {});
    } catch (error) {
      throw error.status === 403 ? new Error(t("wrong_password")) : error;
    }
    await goodbye(redraw);
  }, el("h2", {}, t("delete_account")),
  el("p", {}, t("delete_why")),
  el("p", {}, link("/account-deletion", t("delete_read_more"))),
  el("label", { class: "check" }, el("input", { type: "checkbox", name: "understand", required: true }), t("delete_understand")),
  password ? el("label", {}, t("delete_password"), el("input", { name: "confirm_password", type: "password", required: true, autocomplete: "current-password" })) : null,
  password || me.guest ? el("button", { type: "submit", class: "danger", "data-action": "delete_account" }, t("delete_forever")) : null,
  providerButtons(linked, "delete_with", "delete", { cls: "danger", check: () => card.reportValidity() }));
  return card;
}

/// Back from the provider with the identity that confirms a deletion.
export async function deleteReturned(proof, flow, redraw) {
  try {
    await api("POST", "/v1/me/deletion", { identity: proof });
  } catch (error) {
    return identityFailed(flow, "identity_failed", error);
  }
  await goodbye(redraw);
}

/// The account is gone: every session of it ended at the service, so
/// this device forgets its tokens (and its push subscription, which the
/// service erased) and says goodbye.
async function goodbye(redraw) {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    const subscription = await registration?.pushManager?.getSubscription();
    await subscription?.unsubscribe();
  } catch (_) { /* the service has forgotten it already */ }
  session.clear();
  redraw();
  history.replaceState(null, "", "/");
  show(el("section", { class: "card", role: "status", "data-account-deleted": true },
    el("h2", {}, t("account_deleted_title")), el("p", {}, t("account_deleted_text")),
    el("p", {}, link("/account-deletion", t("delete_read_more")))));
}

/// The public page on deleting an account: how, what goes at once, what
/// stays and for how long (docs/decisions/accounts-and-sessions.md;
/// backups as docs/backups.md keeps them).
export function accountDeletionPage() {
  const list = (key) => el("ul", {}, t(key).map((item) => el("li", {}, item)));
  show(el("article", { class: "card account-deletion", "data-page": "account-deletion" },
    el("h2", {}, t("ad_title")), el("p", {}, t("ad_lead")),
    el("h3", {}, t("ad_how_title")), el("p", {}, t("ad_how")),
    el("h3", {}, t("ad_now_title")), list("ad_now"),
    el("h3", {}, t("ad_stays_title")), list("ad_stays"),
    el("h3", {}, t("ad_when_title")), el("p", {}, t("ad_when")),
    el("p", {}, t("ad_export")),
    el("p", {}, session.access ? link("/settings", t("settings")) : link("/signin", t("sign_in")))));
}
