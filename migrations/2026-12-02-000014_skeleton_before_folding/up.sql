-- Issue #30: a second skeleton of each name, taken before case folding
-- (`names::skeleton_cased`): folding first turned `maIIory`'s capital I
-- into an i, which no longer looks like the l of `mallory`. A name is a
-- look-alike when either skeleton matches. Written by the service
-- (start-up fills rows written before this column).
ALTER TABLE users ADD COLUMN skeleton_cased text;
CREATE INDEX users_skeleton_cased ON users (skeleton_cased) WHERE NOT guest;
