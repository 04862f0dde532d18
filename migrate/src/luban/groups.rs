//! Luban's export groups as audiences. `luban.conf` names groups (`c`, `s`, `e`…, some
//! taken by default by tables that name none) and targets, each exporting some groups;
//! a group a server target exports is seen by servers, one a client target exports by
//! clients, and one no such target exports (an editor's, a test's) only by designers.
//! A target is a server's or a client's by its name (`server`, `client`).

use std::collections::BTreeMap;

use masterctl_schemas::audience::{Audience, Audiences};

/// `{"names": ["c"], "default": true}` in luban.conf.
#[derive(serde::Deserialize, Default)]
pub struct ConfGroup {
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    default: bool,
}

/// `{"name": "client", "groups": ["c"], …}` in luban.conf.
#[derive(serde::Deserialize, Default)]
pub struct ConfTarget {
    #[serde(default)]
    name: String,
    #[serde(default)]
    groups: Vec<String>,
}

/// Each group's audiences, and the groups a table that names none is in.
#[derive(Default)]
pub struct Groups {
    of: BTreeMap<String, Audiences>,
    default: Vec<String>,
}

impl Groups {
    pub fn of(groups: &[ConfGroup], targets: &[ConfTarget]) -> Groups {
        let mut of = BTreeMap::new();
        for group in groups {
            for name in &group.names {
                let mut seen = Vec::new();
                for target in targets.iter().filter(|t| t.groups.contains(name)) {
                    let target_name = target.name.to_ascii_lowercase();
                    if target_name.contains("server") {
                        seen.push(Audience::Server);
                    }
                    if target_name.contains("client") {
                        seen.push(Audience::Client);
                    }
                }
                if seen.is_empty() {
                    seen.push(Audience::Design);
                }
                of.insert(name.clone(), Audiences::of(&seen));
            }
        }
        let default = groups
            .iter()
            .filter(|g| g.default)
            .flat_map(|g| g.names.clone())
            .collect();
        Groups { of, default }
    }

    /// Whether the project declares groups at all (else no audience is written).
    pub fn any(&self) -> bool {
        !self.of.is_empty()
    }

    /// The audiences of a table or field exported in `group` (`c,s`; `None` or empty:
    /// the default groups); for a field, within its `table`'s (a table's own: pass
    /// servers and clients).
    pub fn audience(&self, group: Option<&str>, table: Audiences) -> Audiences {
        let design = Audiences::of(&[Audience::Design]);
        if !self.any() {
            return table;
        }
        let named: Vec<String> = group
            .unwrap_or_default()
            .split([',', ';', '|'])
            .map(|g| g.trim().to_string())
            .filter(|g| !g.is_empty())
            .collect();
        let names = if named.is_empty() {
            &self.default
        } else {
            &named
        };
        let seen = names
            .iter()
            .filter_map(|n| self.of.get(n))
            .fold(Audiences::NONE, |all, a| {
                a.iter().fold(all, Audiences::and_also)
            });
        let players = seen.and(Audiences::default());
        if players.is_empty() || table == design {
            return design;
        }
        let kept = players.and(table);
        if kept.is_empty() { design } else { kept }
    }

    /// How the groups were read, for masterctl.toml: `c → client, s → server, e → design`.
    pub fn said(&self) -> String {
        self.of
            .iter()
            .map(|(name, audience)| format!("{name} → {audience}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
