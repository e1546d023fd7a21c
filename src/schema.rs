//! Diesel table definitions, matching `migrations/`.

diesel::table! {
    coins (id) {
        id -> Int8,
        user_id -> Uuid,
        cause -> Text,
        amount -> Int4,
        source -> Text,
        why -> Text,
        match_id -> Nullable<Uuid>,
        key -> Nullable<Text>,
        at -> Timestamptz,
    }
}

diesel::table! {
    purses (user_id) {
        user_id -> Uuid,
        balance -> Int4,
    }
}

diesel::table! {
    looks_worn (user_id) {
        user_id -> Uuid,
        emblem -> Nullable<Text>,
        themes -> Jsonb,
    }
}

diesel::table! {
    match_shares (token) {
        token -> Text,
        match_id -> Uuid,
        created_by -> Uuid,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    analyses (match_id) {
        match_id -> Uuid,
        requested_at -> Timestamptz,
        judged_to -> Int4,
        plies -> Jsonb,
        done_at -> Nullable<Timestamptz>,
        result -> Nullable<Jsonb>,
    }
}

diesel::table! {
    users (id) {
        id -> Uuid,
        username -> Text,
        email -> Nullable<Text>,
        password_hash -> Nullable<Text>,
        display_name -> Text,
        guest -> Bool,
        locale -> Text,
        time_zone -> Text,
        created_at -> Timestamptz,
        skeleton -> Nullable<Text>,
        email_pending -> Nullable<Text>,
        skeleton_cased -> Nullable<Text>,
        computer -> Nullable<Text>,
        takebacks -> Text,
        display_skeleton -> Nullable<Text>,
        display_skeleton_cased -> Nullable<Text>,
        deleted_at -> Nullable<Timestamptz>,
        name_held_until -> Nullable<Timestamptz>,
        moderator -> Bool,
        suspended_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    messages (id) {
        id -> Uuid,
        serial -> Int8,
        match_id -> Nullable<Uuid>,
        author_id -> Uuid,
        team -> Nullable<Int2>,
        body -> Nullable<Text>,
        at_seq -> Int4,
        created_at -> Timestamptz,
        tournament_id -> Nullable<Uuid>,
        hidden_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    reports (id) {
        id -> Uuid,
        message_id -> Uuid,
        reporter_id -> Uuid,
        reason -> Text,
        detail -> Nullable<Text>,
        created_at -> Timestamptz,
        closed_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    moderation_log (serial) {
        serial -> Int8,
        moderator_id -> Nullable<Uuid>,
        action -> Text,
        target_user -> Nullable<Uuid>,
        target_message -> Nullable<Uuid>,
        target_report -> Nullable<Uuid>,
        why -> Text,
        until -> Nullable<Timestamptz>,
        at -> Timestamptz,
    }
}

diesel::joinable!(reports -> messages (message_id));
diesel::allow_tables_to_appear_in_same_query!(reports, messages);

diesel::table! {
    talk_seats (user_id, match_id) {
        match_id -> Uuid,
        user_id -> Uuid,
        unread -> Int4,
        muted -> Bool,
        tell_at -> Nullable<Timestamptz>,
        told_at -> Nullable<Timestamptz>,
        told -> Int4,
    }
}

diesel::table! {
    notes (user_id, match_id) {
        match_id -> Uuid,
        user_id -> Uuid,
        body -> Text,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    conditional_lines (match_id, user_id) {
        match_id -> Uuid,
        user_id -> Uuid,
        lines -> Jsonb,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    refresh_tokens (token_hash) {
        token_hash -> Bytea,
        user_id -> Uuid,
        family -> Uuid,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        spent_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
        device -> Text,
    }
}

diesel::table! {
    identities (provider, subject) {
        provider -> Text,
        subject -> Text,
        user_id -> Uuid,
        email -> Nullable<Text>,
        linked_at -> Timestamptz,
    }
}

diesel::table! {
    password_resets (id) {
        id -> Uuid,
        token_hash -> Bytea,
        user_id -> Uuid,
        email -> Text,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
    }
}

diesel::joinable!(password_resets -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(password_resets, users);

diesel::table! {
    email_undos (id) {
        id -> Uuid,
        user_id -> Uuid,
        old_email -> Text,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    spent_nonces (nonce_hash) {
        nonce_hash -> Text,
        expires_at -> Timestamptz,
    }
}

diesel::table! {
    jobs (id) {
        id -> Int8,
        kind -> Text,
        key -> Text,
        payload -> Jsonb,
        run_at -> Timestamptz,
        attempts -> Int4,
        leased_until -> Nullable<Timestamptz>,
        last_error -> Nullable<Text>,
        done_at -> Nullable<Timestamptz>,
        failed_at -> Nullable<Timestamptz>,
        created_at -> Timestamptz,
        lane -> Int2,
        owner -> Nullable<Uuid>,
        request_id -> Nullable<Text>,
    }
}

diesel::table! {
    engine_time (id) {
        id -> Int8,
        owner -> Uuid,
        address -> Nullable<Text>,
        at -> Timestamptz,
        millis -> Int4,
        /// Generated from `address`: its IPv6 /48 (docs/abuse.md, "Limits
        /// that hold").
        block -> Nullable<Text>,
    }
}

diesel::table! {
    limit_hits (id) {
        id -> Int8,
        key -> Text,
        at -> Timestamptz,
    }
}

diesel::table! {
    matches (id) {
        id -> Uuid,
        game -> Text,
        variant -> Nullable<Text>,
        mode -> Nullable<Text>,
        options -> Jsonb,
        status -> Text,
        seq -> Int4,
        rated -> Bool,
        turn_seconds -> Int4,
        created_by -> Uuid,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        to_act -> Jsonb,
        awaiting -> Array<Uuid>,
        notice_at -> Nullable<Timestamptz>,
        deadline_at -> Nullable<Timestamptz>,
        result -> Nullable<Jsonb>,
        rematch_of -> Nullable<Uuid>,
        rematch_id -> Nullable<Uuid>,
        tournament_id -> Nullable<Uuid>,
        roster -> Int4,
        planning -> Array<Uuid>,
    }
}

diesel::table! {
    match_seats (match_id, seat) {
        match_id -> Uuid,
        seat -> Int2,
        user_id -> Nullable<Uuid>,
    }
}

diesel::table! {
    match_events (match_id, seq) {
        match_id -> Uuid,
        seq -> Int4,
        at -> Timestamptz,
        seat -> Nullable<Int2>,
        rules -> Bool,
        body -> Jsonb,
    }
}

diesel::table! {
    invites (code) {
        code -> Text,
        match_id -> Uuid,
        seat -> Int2,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        used_by -> Nullable<Uuid>,
        used_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    idempotent_answers (user_id, key) {
        user_id -> Uuid,
        key -> Text,
        match_id -> Uuid,
        answer -> Jsonb,
        created_at -> Timestamptz,
        fingerprint -> Bytea,
    }
}

diesel::joinable!(match_seats -> matches (match_id));
diesel::joinable!(match_events -> matches (match_id));
diesel::joinable!(match_seats -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(users, matches, match_seats, match_events, invites);

diesel::table! {
    notification_settings (user_id) {
        user_id -> Uuid,
        settings -> Jsonb,
    }
}

diesel::table! {
    notifications (id) {
        id -> Int8,
        user_id -> Uuid,
        match_id -> Uuid,
        seq -> Int4,
        kind -> Text,
        channel -> Text,
        payload -> Jsonb,
        status -> Text,
        attempts -> Int4,
        next_attempt_at -> Timestamptz,
        last_error -> Nullable<Text>,
        created_at -> Timestamptz,
        sent_at -> Nullable<Timestamptz>,
        held_at -> Nullable<Timestamptz>,
        request_id -> Nullable<Text>,
    }
}

diesel::table! {
    watchers (stream) {
        stream -> Uuid,
        user_id -> Uuid,
        match_id -> Uuid,
        until -> Timestamptz,
    }
}

diesel::table! {
    app_devices (id) {
        id -> Uuid,
        user_id -> Uuid,
        session_id -> Nullable<Uuid>,
        platform -> Text,
        token -> Text,
        app_id -> Nullable<Text>,
        locale -> Nullable<Text>,
        created_at -> Timestamptz,
        registered_at -> Timestamptz,
    }
}

diesel::table! {
    push_subscriptions (id) {
        id -> Uuid,
        user_id -> Uuid,
        endpoint -> Text,
        p256dh -> Text,
        auth -> Text,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    friendships (requester, addressee) {
        requester -> Uuid,
        addressee -> Uuid,
        accepted -> Bool,
        created_at -> Timestamptz,
        accepted_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    blocks (blocker, blocked) {
        blocker -> Uuid,
        blocked -> Uuid,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    challenges (match_id, seat) {
        match_id -> Uuid,
        seat -> Int2,
        user_id -> Uuid,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
    }
}

diesel::joinable!(challenges -> users (user_id));
diesel::joinable!(challenges -> matches (match_id));
diesel::allow_tables_to_appear_in_same_query!(challenges, users);
diesel::allow_tables_to_appear_in_same_query!(challenges, matches);

diesel::table! {
    seeks (id) {
        id -> Uuid,
        user_id -> Uuid,
        pool -> Text,
        game -> Text,
        variant -> Nullable<Text>,
        mode -> Nullable<Text>,
        players -> Int2,
        turn_seconds -> Int4,
        rated -> Bool,
        rating -> Int4,
        min_rating -> Nullable<Int4>,
        max_rating -> Nullable<Int4>,
        created_at -> Timestamptz,
        expires_at -> Timestamptz,
        match_id -> Nullable<Uuid>,
        paired_at -> Nullable<Timestamptz>,
    }
}

diesel::joinable!(seeks -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(seeks, users);

diesel::table! {
    rematch_offers (match_id, user_id) {
        match_id -> Uuid,
        user_id -> Uuid,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    ratings (user_id, perf) {
        user_id -> Uuid,
        perf -> Text,
        rating -> Float8,
        deviation -> Float8,
        volatility -> Float8,
        games -> Int4,
        wins -> Int4,
        draws -> Int4,
        losses -> Int4,
        last_rated_at -> Nullable<Timestamptz>,
        board_rating -> Nullable<Int4>,
    }
}

diesel::table! {
    rating_counts (perf, rating) {
        perf -> Text,
        rating -> Int4,
        players -> Int4,
    }
}

diesel::table! {
    rating_changes (match_id, user_id) {
        match_id -> Uuid,
        user_id -> Uuid,
        perf -> Text,
        before -> Float8,
        after -> Float8,
    }
}

diesel::joinable!(ratings -> users (user_id));
diesel::allow_tables_to_appear_in_same_query!(ratings, users);

diesel::joinable!(invites -> matches (match_id));

diesel::table! {
    tournaments (id) {
        id -> Uuid,
        name -> Text,
        format -> Text,
        game -> Text,
        variant -> Nullable<Text>,
        mode -> Nullable<Text>,
        options -> Jsonb,
        turn_seconds -> Int4,
        rated -> Bool,
        seeding -> Text,
        status -> Text,
        invite_code -> Text,
        created_by -> Uuid,
        created_at -> Timestamptz,
        starts_at -> Nullable<Timestamptz>,
        started_at -> Nullable<Timestamptz>,
        finished_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    tournament_players (tournament_id, user_id) {
        tournament_id -> Uuid,
        user_id -> Uuid,
        state -> Text,
        seed -> Nullable<Int4>,
        rating -> Nullable<Int4>,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    tournament_matches (match_id) {
        match_id -> Uuid,
        tournament_id -> Uuid,
        round -> Int4,
        slot -> Int4,
        game_no -> Int4,
        first_player -> Uuid,
        second_player -> Uuid,
    }
}

diesel::joinable!(tournament_players -> tournaments (tournament_id));
diesel::joinable!(tournament_players -> users (user_id));
diesel::joinable!(tournament_matches -> tournaments (tournament_id));
diesel::joinable!(tournament_matches -> matches (match_id));
diesel::allow_tables_to_appear_in_same_query!(tournaments, tournament_players, users);
diesel::allow_tables_to_appear_in_same_query!(tournament_matches, matches, tournaments);

diesel::table! {
    puzzles (id) {
        id -> Uuid,
        game -> Text,
        config -> Jsonb,
        events -> Jsonb,
        seats -> Int2,
        solver -> Int2,
        line -> Jsonb,
        goal -> Text,
        depth -> Int4,
        margin -> Int4,
        source -> Text,
        rating -> Float8,
        deviation -> Float8,
        volatility -> Float8,
        plays -> Int4,
        created_at -> Timestamptz,
        variant -> Text,
    }
}

diesel::table! {
    puzzle_days (game, variant, day) {
        game -> Text,
        day -> Date,
        puzzle_id -> Uuid,
        variant -> Text,
    }
}

diesel::table! {
    puzzle_attempts (user_id, puzzle_id) {
        user_id -> Uuid,
        puzzle_id -> Uuid,
        step -> Int4,
        state -> Text,
        missed -> Bool,
        rated -> Bool,
        daily -> Nullable<Date>,
        started_at -> Timestamptz,
        finished_at -> Nullable<Timestamptz>,
        day_began -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    puzzle_ratings (user_id, game) {
        user_id -> Uuid,
        game -> Text,
        rating -> Float8,
        deviation -> Float8,
        volatility -> Float8,
        attempts -> Int4,
    }
}

diesel::table! {
    mined_matches (match_id) {
        match_id -> Uuid,
        mined_at -> Timestamptz,
    }
}

diesel::joinable!(puzzle_days -> puzzles (puzzle_id));
diesel::joinable!(puzzle_attempts -> puzzles (puzzle_id));
diesel::allow_tables_to_appear_in_same_query!(puzzles, puzzle_days, puzzle_attempts);
diesel::allow_tables_to_appear_in_same_query!(matches, mined_matches);

diesel::table! {
    lessons_done (user_id, game, step) {
        user_id -> Uuid,
        game -> Text,
        step -> Text,
        done_at -> Timestamptz,
    }
}

diesel::table! {
    puzzle_mornings (user_id, day) {
        user_id -> Uuid,
        day -> Date,
    }
}

diesel::table! {
    vacations (user_id) {
        user_id -> Uuid,
        hours -> Int4,
        hours_at -> Timestamptz,
        since -> Nullable<Timestamptz>,
        until -> Nullable<Timestamptz>,
        paying_since -> Nullable<Timestamptz>,
        auto -> Bool,
    }
}

diesel::table! {
    friend_settings (user_id) {
        user_id -> Uuid,
        auto_accept -> Bool,
    }
}

diesel::table! {
    talk_settings (user_id) {
        user_id -> Uuid,
        who -> Text,
        muted_until -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    engine_addresses (user_id) {
        user_id -> Uuid,
        address -> Text,
    }
}
