-- The columns come back with their defaults, filled from the owners'
-- tables; the triggers of the expand step are not restored (rolling back
-- this far runs the expand step's down as well).
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
