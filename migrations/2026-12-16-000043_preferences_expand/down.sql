DROP TRIGGER IF EXISTS engine_addresses_to_users ON engine_addresses;
DROP TRIGGER IF EXISTS talk_settings_to_users ON talk_settings;
DROP TRIGGER IF EXISTS friend_settings_to_users ON friend_settings;
DROP TRIGGER IF EXISTS vacations_to_users ON vacations;
DROP TRIGGER IF EXISTS preferences_from_users ON users;
DROP FUNCTION IF EXISTS engine_addresses_to_users, talk_settings_to_users, friend_settings_to_users,
    vacations_to_users, preferences_from_users;
DROP TABLE engine_addresses, talk_settings, friend_settings, vacations;
