-- Issue #47: a guest who registers keeps the nickname the others know
-- (`민지`, `Grandma Kim`) beside a new username. Both are the registered
-- player's names, so both are protected from look-alikes: the skeletons
-- of the display name, kept where it is not the username (an upgraded
-- guest's), are compared as the username's are (`names::look_alike`).
ALTER TABLE users ADD COLUMN display_skeleton text;
ALTER TABLE users ADD COLUMN display_skeleton_cased text;
CREATE INDEX users_display_skeleton ON users (display_skeleton) WHERE NOT guest;
CREATE INDEX users_display_skeleton_cased ON users (display_skeleton_cased) WHERE NOT guest;
