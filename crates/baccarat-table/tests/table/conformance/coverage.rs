//! The conformance coverage table: for every rule a profile cites, the tests
//! that exercise it. The test below fails when a cited rule has no test, when
//! a listed test does not exist, or when `coverage.md` (generated from this
//! table and the profiles) is out of date — run with `BLESS=1` to rewrite it.
//!
//! A test is named `file::fn` (a file of this crate's `tests/table/`, or
//! `conformance::module::fn`), or `server:file::fn` for the server crate's (`tests/server/`).

use baccarat_rules::profiles;

/// (rulebook, citation key, tests).
pub const COVERAGE: &[(&str, &str, &[&str])] = &[
    (
        "nsw-2021",
        "wagers_closed",
        &[
            "engine::refusals_name_their_rule_and_change_nothing",
            "engine_live::live_cards_follow_the_due_positions_and_the_first_card_closes_betting",
        ],
    ),
    ("nsw-2021", "withdraw_losing", &["conformance::nsw::nsw_5_4_a_settled_wager_cannot_be_withdrawn"]),
    (
        "nsw-2021",
        "combination",
        &[
            "engine::nsw_banker_and_player_need_approval_and_the_differential_applies",
            "conformance::nsw::nsw_5_6_6_an_rng_table_refuses_banker_and_player_together_at_placement",
        ],
    ),
    ("nsw-2021", "limits", &["engine::refusals_name_their_rule_and_change_nothing"]),
    ("nsw-2021", "minimum_unit", &["engine::refusals_name_their_rule_and_change_nothing"]),
    ("nsw-2021", "differential", &["engine::nsw_banker_and_player_need_approval_and_the_differential_applies"]),
    ("nsw-2021", "side_bet_needs_main", &["engine::nsw_10_4_a_tables_side_bet_restriction_is_honoured"]),
    ("nsw-2021", "one_side_bet", &["engine::refusals_name_their_rule_and_change_nothing"]),
    ("nsw-2021", "supervisor_refusal", &["engine::nsw_12_17_invalid_bet_returned_and_promotional_tokens"]),
    ("nsw-2021", "invalid_bet_returned", &["engine::nsw_12_17_invalid_bet_returned_and_promotional_tokens"]),
    ("nsw-2021", "insufficient_cards", &["engine::an_uncut_pre_shuffled_shoe_runs_out_and_the_coup_is_void"]),
    ("nsw-2021", "cutting_card", &["engine_live::cutting_card_during_a_coup_means_one_more_coup"]),
    (
        "nsw-2021",
        "last_coup",
        &[
            "engine_live::cutting_card_during_a_coup_means_one_more_coup",
            "engine::a_shuffled_shoe_runs_to_its_last_coup",
        ],
    ),
    ("nsw-2021", "burn", &["conformance::nsw::nsw_4_7_the_shoe_starts_with_a_burn"]),
    ("nsw-2021", "cut", &["conformance::nsw::nsw_4_7_the_shoe_starts_with_a_burn"]),
    ("nsw-2021", "no_bet_coup", &["engine_live::nsw_12_3_excess_banker_card_starts_a_no_bet_coup"]),
    (
        "nsw-2021",
        "unauthorised_player_third",
        &[
            "engine_live::nsw_12_2_unauthorised_player_third_card_becomes_the_bankers_third",
            "engine_live::nsw_12_2_and_au_12_1_the_card_goes_to_the_next_coup_or_a_void_hand",
        ],
    ),
    (
        "nsw-2021",
        "excess_card",
        &[
            "engine_live::nsw_12_3_excess_banker_card_starts_a_no_bet_coup",
            "conformance::nsw::nsw_12_3_an_undisclosed_banker_excess_card_starts_a_no_bet_coup",
        ],
    ),
    ("nsw-2021", "face_up_first", &["engine_live::face_up_cards_in_the_shoe"]),
    ("nsw-2021", "face_up_within", &["engine_live::face_up_cards_in_the_shoe"]),
    ("nsw-2021", "missing_or_foreign", &["engine_live::nsw_12_11_a_foreign_card_voids_the_coup_and_ends_the_shoe"]),
    (
        "nsw-2021",
        "misdeal",
        &[
            "engine_live::nsw_12_1_misdeal_void_or_reconstructed_with_withdrawal",
            "conformance::nsw::nsw_12_1_1_a_player_may_withdraw_after_a_reconstruction",
        ],
    ),
    (
        "nsw-2021",
        "dealing",
        &[
            "engine_styles::method_b_highest_wager_squeezes_and_the_hands_are_never_out_together",
            "engine_styles::method_c_marker_holds_the_banker_hand_until_it_loses",
            "engine_liveness::nsw_8_14_the_last_decline_leaves_the_coup_finishable",
        ],
    ),
    (
        "nsw-2021",
        "tournament",
        &[
            "tournament::nsw_15_6_14_wagers_are_within_the_limits_in_units_of_the_minimum_and_the_chips_held",
            "tournament::nsw_15_9_the_marker_sets_the_order_and_moves_each_coup",
            "tournament::nsw_15_6_8_and_15_7_chips_settle_with_the_tables_pay_tables",
            "tournament::nsw_15_6_12_no_more_bets_waits_for_everyone_and_a_late_player_wagers_the_minimum",
            "tournament::nsw_15_5_6_1_an_absent_player_has_the_minimum_deducted_for_three_coups_at_most",
            "tournament::nsw_15_8_an_undisclosed_wager_is_hidden_until_revealed_and_adjusted_by_the_rule",
            "tournament::nsw_15_10_4_players_out_in_the_same_coup_are_placed_by_their_residual_chips",
            "tournament::nsw_15_10_3_a_tie_for_the_last_place_that_advances_calls_for_a_play_off",
            "tournament::a_tournament_runs_from_registration_to_prizes",
            "tournament::nsw_15_5_7_a_disqualified_player_is_out_and_placed_last",
            "tournament::nsw_15_8_3_4_an_undisclosed_form_not_shown_in_time_has_the_minimum_deducted",
            "tournament::nsw_15_4_2_e_a_session_ends_after_its_coups",
            "tournament::nsw_15_5_5_1_rounds_end_when_decided_and_level_players_play_off",
            "tournament::nsw_15_5_4_the_tournament_manager_moves_a_player_between_coups",
            "tournament::nsw_15_10_3_a_play_off_order_decides_a_later_wildcard_tie_among_its_players",
            "tournament::nsw_15_6_4_no_more_bets_needs_someone_in_play_and_a_disqualification_can_empty_a_coup",
            "server:tournament_play::nsw_15_6_12_and_15_5_5_1_the_clock_binds_the_tournament_manager",
            "server:tournament::a_tournament_is_entered_withdrawn_from_and_cancelled_with_every_fee_accounted_for",
            "server:tournament::only_the_tournament_manager_runs_play_and_players_act_only_for_themselves",
            "server:tournament_play::a_two_table_tournament_runs_from_entry_to_prizes_and_replays",
        ],
    ),
    (
        "nsw-2021",
        "promotional_tokens",
        &[
            "engine::nsw_12_17_invalid_bet_returned_and_promotional_tokens",
            "server:promotion::promotional_tokens_are_issued_by_a_draw_and_wagered_under_the_rule",
        ],
    ),
    ("nsw-2021", "scanner_discrepancy", &["engine_live::nsw_12_13_scanner_discrepancy_confirmed_or_void"]),
    (
        "nsw-2021",
        "invalidated",
        &["engine_live::nsw_14_4_invalidation_refunds_or_forfeits", "conformance::nsw::nsw_14_4_a_game_invalidated"],
    ),
    ("nsw-2021", "shuffler_malfunction", &["engine_live::nsw_13_shuffler_malfunction"]),
    ("nsw-2021", "wrong_hand", &["engine_live::wrong_hand_stands_except_where_au_15_9_voids_it"]),
    (
        "nsw-2021",
        "personal_limits",
        &["engine::nsw_6_8_personal_limits_and_6_7_raised_minimum", "server:trust::personal_limits_are_bounded"],
    ),
    (
        "nsw-2021",
        "minimum_change",
        &[
            "engine::nsw_6_8_personal_limits_and_6_7_raised_minimum",
            "engine::nsw_6_7_a_supervisor_alters_a_wagers_limits_between_coups",
        ],
    ),
    ("nsw-2021", "shuffler", &["conformance::nsw::nsw_4_11_a_continuous_shuffler"]),
    (
        "nsw-2021",
        "late_wagers",
        &[
            "engine::nsw_12_12_wagers_reopened_before_any_card_is_exposed",
            "conformance::nsw::nsw_12_12_late_wagers_not_in_method_a",
        ],
    ),
    ("au-casino", "wagers_closed", &["conformance::au::au_5_14_no_wager_once_the_first_card_is_out"]),
    ("au-casino", "withdraw_losing", &["conformance::au::au_5_15_a_settled_wager_cannot_be_withdrawn"]),
    ("au-casino", "combination", &["engine::au_wager_rules"]),
    (
        "au-casino",
        "limits",
        &[
            "conformance::au::au_5_8_wagers_within_the_table_limits",
            "conformance::au::au_3_1_b_midi_has_up_to_nine_boxes",
        ],
    ),
    ("au-casino", "differential", &["conformance::au::au_5_18_wagers_over_the_differential_are_reduced"]),
    ("au-casino", "side_bet_needs_main", &["engine::au_wager_rules"]),
    ("au-casino", "insufficient_cards", &["conformance::au::au_12_5_insufficient_cards_void_the_round"]),
    ("au-casino", "cutting_card", &["conformance::au::au_11_2_the_cutting_card_decides_the_last_rounds"]),
    ("au-casino", "last_coup", &["conformance::au::au_11_2_the_cutting_card_decides_the_last_rounds"]),
    ("au-casino", "burn", &["conformance::au::au_7_5_to_7_7_cut_and_burn"]),
    ("au-casino", "cut", &["conformance::au::au_7_5_to_7_7_cut_and_burn"]),
    ("au-casino", "no_bet_coup", &["conformance::au::au_12_1_b_a_disclosed_player_third_starts_a_void_hand"]),
    (
        "au-casino",
        "unauthorised_player_third",
        &[
            "engine_live::nsw_12_2_and_au_12_1_the_card_goes_to_the_next_coup_or_a_void_hand",
            "conformance::au::au_12_1_b_a_disclosed_player_third_starts_a_void_hand",
        ],
    ),
    (
        "au-casino",
        "excess_card",
        &[
            "conformance::au::au_12_2_a_undisclosed_excess_card_starts_next_round",
            "conformance::au::au_12_2_b_disclosed_excess_card_starts_a_void_hand",
        ],
    ),
    ("au-casino", "face_up_first", &["conformance::au::au_12_3_and_12_4_cards_found_face_up"]),
    ("au-casino", "face_up_within", &["conformance::au::au_12_3_and_12_4_cards_found_face_up"]),
    (
        "au-casino",
        "misdeal",
        &[
            "conformance::au::au_12_6_players_abide_by_a_reconstruction",
            "conformance::au::au_12_6_a_round_not_reconstructed_is_void",
        ],
    ),
    (
        "au-casino",
        "ante",
        &["engine::au_wager_rules", "server:http_play::au_14_ante_up_over_http_with_and_without_the_waiver"],
    ),
    ("au-casino", "banker_unpayable", &["engine::au_wager_rules"]),
    (
        "au-casino",
        "dealing",
        &["engine_styles::au_style_b_offers_equal_wagers_to_the_lowest_seat_and_style_c_turns_all_four"],
    ),
    (
        "au-casino",
        "wrong_hand",
        &[
            "engine_live::wrong_hand_stands_except_where_au_15_9_voids_it",
            "conformance::au::au_15_9_only_international_baccarat_voids_a_wrong_hand",
        ],
    ),
    ("au-casino", "personal_limits", &["conformance::au::au_5_9_b_a_personal_maximum_stays_within_the_tables"]),
    ("au-casino", "shuffler", &["engine::au_7_2_continuous_shuffler_never_reaches_a_cutting_card"]),
    (
        "au-casino",
        "nominee",
        &[
            "conformance::au::au_2_3_a_nominee_acts_for_one_player",
            "engine_styles::au_15_international_baccarat_cards_go_to_the_nominee",
            "server:trust::au_2_3_a_b_only_a_supervisor_approves_and_announces_a_nominee",
            "server:http::au_2_3_h_a_casino_employee_cannot_be_a_nominee",
        ],
    ),
    ("au-casino", "late_wagers", &["conformance::au::au_15_10_late_wagers_only_in_international_baccarat"]),
    ("au-casino", "card_sets", &["engine::au_3_4_two_sets_of_cards_alternate"]),
    (
        "european-casino",
        "wagers_closed",
        &[
            "conformance::eu::eu_6_1_4_no_bet_after_no_more_bets",
            "conformance::eu::eu_6_1_4_no_withdrawal_after_a_reconstruction",
        ],
    ),
    ("european-casino", "limits", &["conformance::eu::eu_table_limit_minimum_and_maximum"]),
    (
        "european-casino",
        "differential",
        &[
            "conformance::eu::eu_6_1_2_bets_over_the_differential_are_lowered",
            "conformance::eu::eu_6_1_3_the_tie_maximum_is_for_the_whole_table",
        ],
    ),
    ("european-casino", "burn", &["conformance::eu::eu_3_1_1_and_2_1_3_burn_and_cut"]),
    ("european-casino", "no_bet_coup", &["engine::eu_3_1_2_a_player_may_bet_during_the_no_bet_coups"]),
    ("european-casino", "cut", &["conformance::eu::eu_3_1_1_and_2_1_3_burn_and_cut"]),
    ("european-casino", "misdeal", &["conformance::eu::eu_4_2_a_coup_whose_order_cannot_be_restored_is_void"]),
    (
        "european-casino",
        "unauthorised_player_third",
        &["conformance::eu::eu_4_3_a_player_third_out_of_turn_goes_to_the_next_coup"],
    ),
    ("european-casino", "excess_card", &["conformance::eu::eu_4_3_a_card_dealt_out_of_turn_is_used_in_the_next_coup"]),
    ("european-casino", "dealing", &["conformance::eu::eu_5_1_players_hold_cards_and_the_wrong_hand_stands"]),
    ("european-casino", "wrong_hand", &["conformance::eu::eu_5_1_players_hold_cards_and_the_wrong_hand_stands"]),
    ("european-casino", "personal_limits", &["conformance::eu::eu_personal_limit_marker"]),
    ("resort-house", "limits", &["conformance::resort::resort_limits_on_the_sign"]),
];

/// The source file a test name points to, and the function's name.
fn locate(test: &str) -> (std::path::PathBuf, &str) {
    let crate_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (dir, path) = match test.strip_prefix("server:") {
        Some(rest) => (crate_dir.join("../baccarat-server/tests/server"), rest),
        None => (crate_dir.join("tests/table"), test),
    };
    let (module, name) = path.rsplit_once("::").expect("file::fn");
    let file = match module.split_once("::") {
        Some((dir_name, m)) => dir.join(dir_name).join(format!("{m}.rs")),
        None => dir.join(format!("{module}.rs")),
    };
    (file, name)
}

/// The table as Markdown, one section per rulebook: key, citation, tests.
fn markdown() -> String {
    let mut out = String::from(
        "# Conformance coverage\n\nGenerated by `coverage.rs` (run the conformance tests with `BLESS=1` to rewrite): for every rule a profile cites, the tests that exercise it.\n",
    );
    for rb in profiles::all() {
        out.push_str(&format!("\n## {} ({})\n\n| key | rule | tests |\n|---|---|---|\n", rb.id, rb.config.title));
        for (key, cite) in &rb.config.citations {
            let tests = COVERAGE
                .iter()
                .find(|(r, k, _)| *r == rb.id && k == key)
                .map(|(_, _, t)| t.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", "))
                .unwrap_or_else(|| "**none**".into());
            out.push_str(&format!("| `{key}` | {} | {tests} |\n", cite.replace('|', "/")));
        }
    }
    out
}

#[test]
fn every_cited_rule_has_a_test_and_the_table_is_current() {
    let mut missing = Vec::new();
    for rb in profiles::all() {
        for key in rb.config.citations.keys() {
            match COVERAGE.iter().find(|(r, k, _)| *r == rb.id && k == key) {
                Some((_, _, tests)) if !tests.is_empty() => {}
                _ => missing.push(format!("{} {key}", rb.id)),
            }
        }
    }
    assert!(missing.is_empty(), "cited rules without a test: {missing:?}");
    for (rb, key, tests) in COVERAGE {
        let profile = profiles::builtin(rb).unwrap();
        assert!(profile.config.citations.contains_key(*key), "{rb} does not cite {key}: stale row");
        for t in *tests {
            let (file, name) = locate(t);
            let src =
                std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{rb} {key}: {t}: {}: {e}", file.display()));
            assert!(src.contains(&format!("fn {name}(")), "{rb} {key}: no test {name} in {}", file.display());
        }
    }
    let md = markdown();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/table/conformance/coverage.md");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, &md).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == md,
        "{} is out of date: run `BLESS=1 cargo test -p baccarat-table --test table conformance::`",
        path.display()
    );
}
