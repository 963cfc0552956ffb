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
        let mut line = |x: String| {
            t.push_str(&x);
            t.push('\n');
        };
        line(s.name.clone());
        line(format!("Tournament conditions under {} (NSW 15)", self.rulebook.title));
        line(String::new());
        line("Entry (NSW 15.4.2(a), (i))".into());
        line(if s.entry.fee > 0 { format!("  Entry fee: {}", Money(s.entry.fee)) } else { "  No entry fee.".into() });
        line(format!(
            "  Starts {}; between {} and {} players.",
            s.entry.starts, s.entry.min_players, s.entry.max_players
        ));
        line(format!("  Apply: {}", s.entry.application));
        line(format!(
            "  A player may withdraw without financial penalty until {} hours before the start.",
            s.entry.withdraw_hours_before_start
        ));
        if s.entry.agree_in_writing {
            line("  Each player agrees in writing to the rules and these conditions before entry (NSW 15.4.3).".into());
        }
        line("Eligibility (NSW 15.4.2(h))".into());
        line("  Only persons entitled to enter the casino and gamble are eligible to enter the tournament.".into());
        if s.eligibility.may_refuse_any {
            line("  The casino operator may refuse any application.".into());
        }
        for c in &s.eligibility.criteria {
            line(format!("  {c}"));
        }
        line("Chips (NSW 15.4.2(b); 15.6)".into());
        line(format!(
            "  {} tournament chips each session{}. Tournament chips have no cash value and are not redeemable.",
            Money(s.chips.per_session),
            if s.chips.buy_in > 0 { format!(", bought for {}", Money(s.chips.buy_in)) } else { String::new() }
        ));
        line("Wagers (NSW 15.4.2(c), (d); 15.6)".into());
        if s.wagers.compulsory {
            line("  A wager on every coup is compulsory (unless a pass card is played).".into());
        }
        line(format!(
            "  Minimum {} and maximum {} a coup, in units of the minimum, on: {}.",
            Money(s.wagers.min),
            Money(s.wagers.max),
            s.wagers.bets.join(", ")
        ));
        for c in &s.wagers.changes {
            line(format!(
                "  From coup {} of each session: minimum {}, maximum {}.",
                c.from_coup,
                Money(c.min),
                Money(c.max)
            ));
        }
        if let Some(secs) = s.wagers.time_limit_seconds {
            line(format!(
                "  Each wager must be made within {secs} seconds; a late wager is restricted to the minimum (NSW 15.6.12)."
            ));
        }
        line("Structure (NSW 15.4.2(e))".into());
        let method: Vec<String> = s
            .structure
            .dealing
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
            })
            .collect();
        line(format!(
            "  Dealing: {} ({}); {} players a table.",
            method.join(" "),
            self.rulebook.procedures.dealing_rule,
            s.structure.seats_per_table
        ));
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
            line(format!(
                "  {}: {} table{}, {length}; {on}{}.",
                r.name,
                r.tables,
                if r.tables == 1 { "" } else { "s" },
                if r.repechage { "; a repechage for those eliminated" } else { "" }
            ));
        }
        line("  Ties for a place are decided by a play-off (NSW 15.10.3); players out in the same coup are placed by NSW 15.10.4.".into());
        line("Conduct of play (NSW 15.4.2(f))".into());
        line(format!(
            "  Tables and boxes are allocated {}.",
            match s.play.seating {
                Seating::Draw => "by random draw",
                Seating::Manager => "by the Tournament Manager",
            }
        ));
        if s.play.marker {
            line("  Wagering is in order with a marker: box one first on the first coup, box two on the second, and so on (NSW 15.9).".into());
        }
        if s.play.pass_cards > 0 {
            line(format!("  {} pass card(s) per player each heat (NSW 15.7).", s.play.pass_cards));
        }
        if s.play.undisclosed_wagers > 0 {
            line(format!("  {} undisclosed wager(s) per player each session (NSW 15.8).", s.play.undisclosed_wagers));
        }
        line("Buy-backs (NSW 15.4.2(g))".into());
        match &s.buy_back {
            None => line("  None.".into()),
            Some(b) => line(format!(
                "  An eliminated player may buy back in {} time(s) for {}, until the end of round {}.",
                b.times,
                Money(b.price),
                b.until_round
            )),
        }
        line("Prizes (NSW 15.4.2(j); 15.3)".into());
        line("  Every entry fee goes into the prize pool (NSW 15.3.2).".into());
        if s.prizes.added > 0 {
            line(format!("  The casino operator adds {} (NSW 15.3.1).", Money(s.prizes.added)));
        }
        if let Some(g) = &s.prizes.guarantee {
            line(format!(
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
            line(format!("  With the {n} entrants ({entrants}), the pool is {pool}: {}.", paid.join("; ")));
        }
        line(format!("  Paid by: {}.", s.prizes.payment));
        line("  If the tournament is cancelled, every entry fee is refunded (NSW 15.3.4).".into());
        for n in &s.notes {
            line(n.clone());
        }
        line(String::new());
        line(
            "The tournament is conducted by the Tournament Manager in accordance with these conditions and the \
             applicable rules of the game; in the event of any inconsistency, the rules prevail (NSW 15.4.2(k))."
                .into(),
        );
        t
    }
}
