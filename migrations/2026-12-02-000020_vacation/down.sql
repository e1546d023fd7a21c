DROP INDEX users_on_vacation;
ALTER TABLE users
    DROP COLUMN vacation_hours,
    DROP COLUMN vacation_hours_at,
    DROP COLUMN vacation_since,
    DROP COLUMN vacation_until,
    DROP COLUMN vacation_paying_since,
    DROP COLUMN auto_vacation;
