-- The columns come back with their defaults, filled from the owners'
-- tables, and the expand step's triggers with them: the release rolled
-- back to reads the owners' tables while the one before it may still run.
ALTER TABLE users
    ADD COLUMN vacation_hours integer NOT NULL DEFAULT 720 CHECK (vacation_hours >= 0),
    ADD COLUMN vacation_hours_at timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN vacation_since timestamptz,
    ADD COLUMN vacation_until timestamptz,
    ADD COLUMN vacation_paying_since timestamptz,
    ADD COLUMN auto_vacation boolean NOT NULL DEFAULT false,
    ADD COLUMN auto_accept_friends boolean NOT NULL DEFAULT false,
    ADD COLUMN talk text NOT NULL DEFAULT 'everyone' CHECK (talk IN ('everyone', 'friends', 'nobody')),
    ADD COLUMN talk_muted_until timestamptz,
    ADD COLUMN address text;
CREATE INDEX users_on_vacation ON users (vacation_since) WHERE vacation_since IS NOT NULL;
UPDATE users u SET vacation_hours = v.hours, vacation_hours_at = v.hours_at,
    vacation_since = v.since, vacation_until = v.until,
    vacation_paying_since = v.paying_since, auto_vacation = v.auto
FROM vacations v WHERE v.user_id = u.id;
UPDATE users u SET auto_accept_friends = f.auto_accept FROM friend_settings f WHERE f.user_id = u.id;
UPDATE users u SET talk = t.who, talk_muted_until = t.muted_until FROM talk_settings t WHERE t.user_id = u.id;
UPDATE users u SET address = a.address FROM engine_addresses a WHERE a.user_id = u.id;

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
