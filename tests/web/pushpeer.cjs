// A push service for the browser test: an HTTP endpoint the service posts
// Web Push messages to, holding the subscription's keys so that it can
// open each message (RFC 8291, aes128gcm) as the browser's push service
// would before handing it to the service worker.
"use strict";
const crypto = require("crypto");
const http = require("http");

const b64url = (buf) => Buffer.from(buf).toString("base64url");

/// Opens one aes128gcm message (RFC 8188 framing, RFC 8291 keys).
function decrypt(body, keys) {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const senderPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const secret = keys.ecdh.computeSecret(senderPublic);
  const info = Buffer.concat([Buffer.from("WebPush: info\0"), keys.publicKey, senderPublic]);
  const ikm = Buffer.from(crypto.hkdfSync("sha256", secret, keys.auth, info, 32));
  const cek = Buffer.from(crypto.hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
  const nonce = Buffer.from(crypto.hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
  const decipher = crypto.createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then zero padding.
  let end = padded.length - 1;
  while (end > 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("no last-record delimiter");
  return padded.subarray(0, end).toString("utf8");
}

/// Starts the endpoint; `subscription()` is what a browser would register.
async function start() {
  const ecdh = crypto.createECDH("prime256v1");
  ecdh.generateKeys();
  const keys = { ecdh, publicKey: ecdh.getPublicKey(), auth: crypto.randomBytes(16) };
  const messages = [];
  const waiting = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        const text = decrypt(Buffer.concat(chunks), keys);
        messages.push(JSON.parse(text));
        res.writeHead(201).end();
        waiting.splice(0).forEach((wake) => wake());
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${server.address().port}/push/device-1`;
  return {
    subscription: () => ({ endpoint, keys: { p256dh: b64url(keys.publicKey), auth: b64url(keys.auth) } }),
    /// The first message that `test` accepts, waiting up to `ms`.
    async next(test, ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = messages.find(test);
        if (found) return found;
        if (Date.now() > deadline) throw new Error("no push arrived: " + JSON.stringify(messages));
        await new Promise((resolve) => { waiting.push(resolve); setTimeout(resolve, 250); });
      }
    },
    close: () => server.close(),
  };
}

module.exports = { start };
