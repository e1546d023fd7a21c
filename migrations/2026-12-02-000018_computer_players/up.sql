-- Issue #32: computer opponents hold seats as players do. One player per
-- level; `computer` names the level (null for people). Their usernames
-- have a colon, which no registration or guest name may have, and they
-- have no password: nobody signs in as one, and `players::named` never
-- finds one, so nobody challenges, befriends or blocks one by name.
ALTER TABLE users ADD COLUMN computer TEXT;
INSERT INTO users (id, username, display_name, guest, locale, time_zone, created_at, computer) VALUES
    ('00000000-0000-4000-8000-00000000c001', 'computer:easy', 'Computer (easy)', false, 'en', 'UTC', now(), 'easy'),
    ('00000000-0000-4000-8000-00000000c002', 'computer:normal', 'Computer (normal)', false, 'en', 'UTC', now(), 'normal'),
    ('00000000-0000-4000-8000-00000000c003', 'computer:hard', 'Computer (hard)', false, 'en', 'UTC', now(), 'hard');
