-- contract: 2026-12-16-000043_preferences_expand
-- The preferences' contract step (docs/decisions/accounts-and-sessions.md,
-- "Whose data is whose"): the release before this one reads and writes
-- only the owners' tables, so the triggers that kept the account row's
-- old columns equal go, and the columns with them.
DROP TRIGGER preferences_from_users ON users;
DROP TRIGGER vacations_to_users ON vacations;
DROP TRIGGER friend_settings_to_users ON friend_settings;
DROP TRIGGER talk_settings_to_users ON talk_settings;
DROP TRIGGER engine_addresses_to_users ON engine_addresses;
DROP FUNCTION preferences_from_users, vacations_to_users, friend_settings_to_users,
    talk_settings_to_users, engine_addresses_to_users;
DROP INDEX users_on_vacation;
ALTER TABLE users
    DROP COLUMN vacation_hours,
    DROP COLUMN vacation_hours_at,
    DROP COLUMN vacation_since,
    DROP COLUMN vacation_until,
    DROP COLUMN vacation_paying_since,
    DROP COLUMN auto_vacation,
    DROP COLUMN auto_accept_friends,
    DROP COLUMN talk,
    DROP COLUMN talk_muted_until,
    DROP COLUMN address;
