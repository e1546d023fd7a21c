-- The request an action came from, kept on what it causes, so that one
-- move can be followed from its request to the push that tells of it
-- (docs/operations.md, "Following one move"). Nullable: rows caused by a
-- timer (the sweep, the morning puzzle) have no request.
ALTER TABLE notices ADD COLUMN request_id text;
ALTER TABLE notifications ADD COLUMN request_id text;
ALTER TABLE jobs ADD COLUMN request_id text;
