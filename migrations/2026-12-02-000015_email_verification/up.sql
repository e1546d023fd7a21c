-- Issue #30: an address is the account's (`email`: notifications, sign-in,
-- uniqueness) only once a link sent to it was opened. Until then it waits
-- in `email_pending`, receives nothing but that link, and holds nothing:
-- its owner can still sign up or claim it. Addresses given before this
-- were never verified, so they wait too; their accounts are asked again
-- from the settings page.
ALTER TABLE users ADD COLUMN email_pending text;
UPDATE users SET email_pending = email, email = NULL WHERE email IS NOT NULL;
