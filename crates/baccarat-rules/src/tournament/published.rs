//! The conditions as players are given them (NSW 15.4.1): the text of
//! [`Conditions::published`], with the statements NSW 15.4.2 (h), (i) and (k)
//! require.

use super::*;

impl Conditions {
    /// The conditions as players are given them (NSW 15.4.1), with the
    /// statements NSW 15.4.2 (h), (i) and (k) require.
    pub fn published(&self) -> String {
        let s = &self.spec;
        let mut t = String::new();
        self.publish_entry(&mut t);
        self.publish_chips_and_wagers(&mut t);
        self.publish_structure(&mut t);
        self.publish_conduct(&mut t);
        self.publish_prizes(&mut t);
        for n in &s.notes {
            line(&mut t, n.clone());
        }
        line(&mut t, String::new());
        line(
            &mut t,
            "The tournament is conducted by the Tournament Manager in accordance with these conditions and the \
             applicable rules of the game; in the event of any inconsistency, the rules prevail (NSW 15.4.2(k))."
                .into(),
        );
        t
    }

    /// The title, then entry (NSW 15.4.2(a), (i); 15.4.3) and eligibility
    /// (NSW 15.4.2(h)).
    fn publish_entry(&self, t: &mut String) {
        let s = &self.spec;
        line(t, s.name.clone());
        line(t, format!("Tournament conditions under {} (NSW 15)", self.rulebook.title));
        line(t, String::new());
        line(t, "Entry (NSW 15.4.2(a), (i))".into());
        line(
            t,
            if s.entry.fee > 0 { format!("  Entry fee: {}", Money(s.entry.fee)) } else { "  No entry fee.".into() },
        );
        line(
            t,
            format!(
                "  Starts {}; between {} and {} players.",
                s.entry.starts, s.entry.min_players, s.entry.max_players
            ),
        );
        line(t, format!("  Apply: {}", s.entry.application));
        line(
            t,
            format!(
                "  A player may withdraw without financial penalty until {} hours before the start.",
                s.entry.withdraw_hours_before_start
            ),
        );
        if s.entry.agree_in_writing {
            line(
                t,
                "  Each player agrees in writing to the rules and these conditions before entry (NSW 15.4.3).".into(),
            );
        }
        line(t, "Eligibility (NSW 15.4.2(h))".into());
        line(t, "  Only persons entitled to enter the casino and gamble are eligible to enter the tournament.".into());
        if s.eligibility.may_refuse_any {
            line(t, "  The casino operator may refuse any application.".into());
        }
        for c in &s.eligibility.criteria {
            line(t, format!("  {c}"));
        }
    }

    /// Tournament chips (NSW 15.4.2(b); 15.6) and the wagers: limits, their
    /// changes by coup and the time limit (NSW 15.4.2(c), (d); 15.6.12).
    fn publish_chips_and_wagers(&self, t: &mut String) {
        let s = &self.spec;
        line(t, "Chips (NSW 15.4.2(b); 15.6)".into());
        line(
            t,
            format!(
                "  {} tournament chips each session{}. Tournament chips have no cash value and are not redeemable.",
                Money(s.chips.per_session),
                if s.chips.buy_in > 0 { format!(", bought for {}", Money(s.chips.buy_in)) } else { String::new() }
            ),
        );
        line(t, "Wagers (NSW 15.4.2(c), (d); 15.6)".into());
        if s.wagers.compulsory {
            line(t, "  A wager on every coup is compulsory (unless a pass card is played).".into());
        }
        line(
            t,
            format!(
                "  Minimum {} and maximum {} a coup, in units of the minimum, on: {}.",
                Money(s.wagers.min),
                Money(s.wagers.max),
                s.wagers.bets.join(", ")
            ),
        );
        for c in &s.wagers.changes {
            line(
                t,
                format!(
                    "  From coup {} of each session: minimum {}, maximum {}.",
                    c.from_coup,
                    Money(c.min),
                    Money(c.max)
                ),
            );
        }
        if let Some(secs) = s.wagers.time_limit_seconds {
            line(t, format!(
                "  Each wager must be made within {secs} seconds; a late wager is restricted to the minimum (NSW 15.6.12)."
            ));
        }
    }

    /// The structure (NSW 15.4.2(e)): the dealing method, each round and how
    /// players advance, and how ties for a place are decided (NSW 15.10.3-15.10.4).
    fn publish_structure(&self, t: &mut String) {
        let s = &self.spec;
        line(t, "Structure (NSW 15.4.2(e))".into());
        let method: Vec<String> = s
            .structure
            .dealing
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
            })
            .collect();
        line(
            t,
            format!(
                "  Dealing: {} ({}); {} players a table.",
                method.join(" "),
                self.rulebook.procedures.dealing_rule,
                s.structure.seats_per_table
            ),
        );
        for r in &s.structure.rounds {
            let length = match (r.coups, r.minutes) {
                (Some(c), _) => format!("{c} coups"),
                (_, Some(m)) => format!("{m} minutes"),
                _ => String::new(),
            };
            let on = if r.advance_per_table == 0 {
                "the final decides the winner and the places".to_string()
            } else {
                format!(
                    "the top {} of each table{} advance",
                    r.advance_per_table,
                    if r.wildcards > 0 {
                        format!(", and {} wildcards on chip count", r.wildcards)
                    } else {
                        String::new()
                    }
                )
            };
            line(
                t,
                format!(
                    "  {}: {} table{}, {length}; {on}{}.",
                    r.name,
                    r.tables,
                    if r.tables == 1 { "" } else { "s" },
                    if r.repechage { "; a repechage for those eliminated" } else { "" }
                ),
            );
        }
        line(t, "  Ties for a place are decided by a play-off (NSW 15.10.3); players out in the same coup are placed by NSW 15.10.4.".into());
    }

    /// The conduct of play (NSW 15.4.2(f); 15.7-15.9) and buy-backs
    /// (NSW 15.4.2(g)).
    fn publish_conduct(&self, t: &mut String) {
        let s = &self.spec;
        line(t, "Conduct of play (NSW 15.4.2(f))".into());
        line(
            t,
            format!(
                "  Tables and boxes are allocated {}.",
                match s.play.seating {
                    Seating::Draw => "by random draw",
                    Seating::Manager => "by the Tournament Manager",
                }
            ),
        );
        if s.play.marker {
            line(t, "  Wagering is in order with a marker: box one first on the first coup, box two on the second, and so on (NSW 15.9).".into());
        }
        if s.play.pass_cards > 0 {
            line(t, format!("  {} pass card(s) per player each heat (NSW 15.7).", s.play.pass_cards));
        }
        if s.play.undisclosed_wagers > 0 {
            line(
                t,
                format!("  {} undisclosed wager(s) per player each session (NSW 15.8).", s.play.undisclosed_wagers),
            );
        }
        line(t, "Buy-backs (NSW 15.4.2(g))".into());
        match &s.buy_back {
            None => line(t, "  None.".into()),
            Some(b) => line(
                t,
                format!(
                    "  An eliminated player may buy back in {} time(s) for {}, until the end of round {}.",
                    b.times,
                    Money(b.price),
                    b.until_round
                ),
            ),
        }
    }

    /// The prizes (NSW 15.4.2(j); 15.3): the pool, what is added and
    /// guaranteed, the shares at the fewest and the most entrants, and refunds.
    fn publish_prizes(&self, t: &mut String) {
        let s = &self.spec;
        line(t, "Prizes (NSW 15.4.2(j); 15.3)".into());
        line(t, "  Every entry fee goes into the prize pool (NSW 15.3.2).".into());
        if s.prizes.added > 0 {
            line(t, format!("  The casino operator adds {} (NSW 15.3.1).", Money(s.prizes.added)));
        }
        if let Some(g) = &s.prizes.guarantee {
            line(t, format!(
                "  The pool is guaranteed to be at least {} if {} or more enter; with fewer the tournament may be cancelled (NSW 15.3.3).",
                Money(g.amount),
                g.min_entries
            ));
        }
        for (n, entrants) in [("fewest", s.entry.min_players), ("most", s.entry.max_players)] {
            let pool = self.pool(entrants);
            let shares = self.shares(pool);
            let paid: Vec<String> = s
                .prizes
                .places
                .iter()
                .zip(shares)
                .enumerate()
                .map(|(i, (pl, m))| match &pl.prize {
                    Some(p) => format!("{}: {p}", i + 1),
                    None => format!("{}: {m}", i + 1),
                })
                .collect();
            line(t, format!("  With the {n} entrants ({entrants}), the pool is {pool}: {}.", paid.join("; ")));
        }
        line(t, format!("  Paid by: {}.", s.prizes.payment));
        line(t, "  If the tournament is cancelled, every entry fee is refunded (NSW 15.3.4).".into());
    }
}

/// One line of the published text.
fn line(t: &mut String, x: String) {
    t.push_str(&x);
    t.push('\n');
}
