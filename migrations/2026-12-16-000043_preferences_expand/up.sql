-- A player's preferences move out of the account row into the tables of
-- the modules that own them (docs/decisions/accounts-and-sessions.md,
-- "Whose data is whose"), as lichess keeps its `pref` apart: vacation's
-- allowance and state, friends' auto-accept, talk's "who may write to me"
-- with a moderator's mute, and the address the computer's budget charges.
--
-- The expand step. This release reads and writes only the new tables; the
-- release before it, still running beside it during a rolling restart,
-- reads and writes the old columns. Triggers keep the two equal both ways
-- until the contract step drops the triggers and the old columns. A
-- player with no row holds the defaults (a full allowance, not away,
-- talk from everyone), so only rows that differ are copied.

CREATE TABLE vacations (
    user_id      uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    hours        integer NOT NULL DEFAULT 720 CHECK (hours >= 0),
    hours_at     timestamptz NOT NULL DEFAULT now(),
    since        timestamptz,
    until        timestamptz,
    paying_since timestamptz,
    auto         boolean NOT NULL DEFAULT false
);
CREATE INDEX vacations_away ON vacations (since) WHERE since IS NOT NULL;

CREATE TABLE friend_settings (
    user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    auto_accept boolean NOT NULL DEFAULT false
);

CREATE TABLE talk_settings (
    user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    who         text NOT NULL DEFAULT 'everyone' CHECK (who IN ('everyone', 'friends', 'nobody')),
    muted_until timestamptz
);

CREATE TABLE engine_addresses (
    user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    address text NOT NULL
);

-- The previous release may write a preference while this runs: held off
-- until the triggers below are in place, so no write falls between the
-- copy and the trigger that would have carried it.
LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO vacations (user_id, hours, hours_at, since, until, paying_since, auto)
SELECT id, vacation_hours, vacation_hours_at, vacation_since, vacation_until,
       vacation_paying_since, auto_vacation
FROM users
WHERE vacation_hours <> 720 OR vacation_since IS NOT NULL OR auto_vacation
   OR vacation_paying_since IS NOT NULL;
INSERT INTO friend_settings (user_id, auto_accept)
SELECT id, true FROM users WHERE auto_accept_friends;
INSERT INTO talk_settings (user_id, who, muted_until)
SELECT id, talk, talk_muted_until FROM users
WHERE talk <> 'everyone' OR talk_muted_until IS NOT NULL;
INSERT INTO engine_addresses (user_id, address)
SELECT id, address FROM users WHERE address IS NOT NULL;

-- The previous release's writes to the old columns reach the new tables.
CREATE FUNCTION preferences_from_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
    END IF;
    IF (NEW.vacation_hours, NEW.vacation_hours_at, NEW.vacation_since, NEW.vacation_until,
        NEW.vacation_paying_since, NEW.auto_vacation)
       IS DISTINCT FROM
       (OLD.vacation_hours, OLD.vacation_hours_at, OLD.vacation_since, OLD.vacation_until,
        OLD.vacation_paying_since, OLD.auto_vacation) THEN
        INSERT INTO vacations (user_id, hours, hours_at, since, until, paying_since, auto)
        VALUES (NEW.id, NEW.vacation_hours, NEW.vacation_hours_at, NEW.vacation_since,
                NEW.vacation_until, NEW.vacation_paying_since, NEW.auto_vacation)
        ON CONFLICT (user_id) DO UPDATE SET
            hours = EXCLUDED.hours, hours_at = EXCLUDED.hours_at, since = EXCLUDED.since,
            until = EXCLUDED.until, paying_since = EXCLUDED.paying_since, auto = EXCLUDED.auto;
    END IF;
    IF NEW.auto_accept_friends IS DISTINCT FROM OLD.auto_accept_friends THEN
        INSERT INTO friend_settings (user_id, auto_accept) VALUES (NEW.id, NEW.auto_accept_friends)
        ON CONFLICT (user_id) DO UPDATE SET auto_accept = EXCLUDED.auto_accept;
    END IF;
    IF (NEW.talk, NEW.talk_muted_until) IS DISTINCT FROM (OLD.talk, OLD.talk_muted_until) THEN
        INSERT INTO talk_settings (user_id, who, muted_until)
        VALUES (NEW.id, NEW.talk, NEW.talk_muted_until)
        ON CONFLICT (user_id) DO UPDATE SET who = EXCLUDED.who, muted_until = EXCLUDED.muted_until;
    END IF;
    IF NEW.address IS DISTINCT FROM OLD.address THEN
        IF NEW.address IS NULL THEN
            DELETE FROM engine_addresses WHERE user_id = NEW.id;
        ELSE
            INSERT INTO engine_addresses (user_id, address) VALUES (NEW.id, NEW.address)
            ON CONFLICT (user_id) DO UPDATE SET address = EXCLUDED.address;
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER preferences_from_users AFTER UPDATE ON users
    FOR EACH ROW EXECUTE FUNCTION preferences_from_users();

-- This release's writes to the new tables reach the old columns, which the
-- previous release reads; a row deleted reads as the defaults there.
CREATE FUNCTION vacations_to_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        UPDATE users SET vacation_hours = 720, vacation_hours_at = now(), vacation_since = NULL,
            vacation_until = NULL, vacation_paying_since = NULL, auto_vacation = false
        WHERE id = OLD.user_id;
    ELSE
        UPDATE users SET vacation_hours = NEW.hours, vacation_hours_at = NEW.hours_at,
            vacation_since = NEW.since, vacation_until = NEW.until,
            vacation_paying_since = NEW.paying_since, auto_vacation = NEW.auto
        WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER vacations_to_users AFTER INSERT OR UPDATE OR DELETE ON vacations
    FOR EACH ROW EXECUTE FUNCTION vacations_to_users();

CREATE FUNCTION friend_settings_to_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        UPDATE users SET auto_accept_friends = false WHERE id = OLD.user_id;
    ELSE
        UPDATE users SET auto_accept_friends = NEW.auto_accept WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER friend_settings_to_users AFTER INSERT OR UPDATE OR DELETE ON friend_settings
    FOR EACH ROW EXECUTE FUNCTION friend_settings_to_users();

CREATE FUNCTION talk_settings_to_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        UPDATE users SET talk = 'everyone', talk_muted_until = NULL WHERE id = OLD.user_id;
    ELSE
        UPDATE users SET talk = NEW.who, talk_muted_until = NEW.muted_until WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER talk_settings_to_users AFTER INSERT OR UPDATE OR DELETE ON talk_settings
    FOR EACH ROW EXECUTE FUNCTION talk_settings_to_users();

CREATE FUNCTION engine_addresses_to_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        UPDATE users SET address = NULL WHERE id = OLD.user_id;
    ELSE
        UPDATE users SET address = NEW.address WHERE id = NEW.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER engine_addresses_to_users AFTER INSERT OR UPDATE OR DELETE ON engine_addresses
    FOR EACH ROW EXECUTE FUNCTION engine_addresses_to_users();
