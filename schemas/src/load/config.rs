//! `masterctl.toml`: languages and regions, checked against the tables (`owns`) and
//! each other (upstream chains without cycles).

use std::collections::{BTreeMap, HashMap, HashSet};

use toml::Spanned;

use crate::diagnostic::Code;
use crate::schema::{Config, NotifyConfig, PseudoConfig, PublishConfig, RegionConfig, Unread};

use super::*;

impl Builder {
    pub(super) fn check_config(&mut self, checked: RawConfigChecked) -> Config {
        let Some(raw) = checked.config else {
            return Config::default();
        };
        let path = checked.file.clone().unwrap_or_default();
        let source = SourceText::new(&path, &checked.text);
        let (source_language, languages) = self.check_languages(&source, &raw);
        let mut regions = BTreeMap::new();
        let mut branches: HashMap<String, String> = HashMap::new();
        for (name, spanned) in &raw.regions {
            let region =
                self.check_region(&source, &raw, &languages, &mut branches, (name, spanned));
            regions.insert(name.clone(), region);
        }
        self.check_upstream_cycles(&source, &raw.regions);
        let publish = raw
            .publish
            .as_ref()
            .and_then(|publish| self.check_publish(&source, publish));
        let trusted_keys = raw
            .delivery
            .as_ref()
            .map(|delivery| self.check_trusted_keys(&source, delivery))
            .unwrap_or_default();
        let unread = raw
            .unread
            .as_ref()
            .map(|unread| self.check_unread(&source, unread))
            .unwrap_or_default();
        let pseudo = raw
            .pseudo
            .as_ref()
            .map(|pseudo| self.check_pseudo(&source, pseudo, &languages))
            .unwrap_or_default();
        let fonts = raw
            .fonts
            .as_ref()
            .map(|fonts| self.check_fonts(&source, fonts, &languages, &pseudo.languages))
            .unwrap_or_default();
        let notify = raw
            .notify
            .as_ref()
            .and_then(|notify| self.check_notify(&source, notify));
        let glossary_is_error = raw
            .checks
            .as_ref()
            .and_then(|checks| checks.glossary.as_ref())
            .is_some_and(|weight| self.check_weight(&source, "glossary", weight));
        Config {
            file: checked.file,
            source_language,
            languages,
            regions,
            timezone: self.zone.clone(),
            publish,
            trusted_keys,
            audience: self.audience,
            unread,
            pseudo,
            fonts,
            glossary_is_error,
            notify,
        }
    }

    /// `[notify]`: an `http(s)://` webhook, and the kinds of events among
    /// [`crate::schema::NOTIFIED`] it is told of.
    fn check_notify(&mut self, source: &SourceText, raw: &RawNotify) -> Option<NotifyConfig> {
        let webhook = raw.webhook.get_ref();
        if !(webhook.starts_with("https://") || webhook.starts_with("http://")) {
            self.error(
                source
                    .error(
                        Code::InvalidName,
                        raw.webhook.span(),
                        "a webhook is an http(s):// address".to_string(),
                    )
                    .expected("https://hooks.example.com/…"),
            );
            return None;
        }
        let mut events = Vec::new();
        for event in raw.events.iter().flatten() {
            if !crate::schema::NOTIFIED.contains(&event.get_ref().as_str()) {
                self.error(
                    source
                        .error(
                            Code::InvalidName,
                            event.span(),
                            format!("`{}` is no kind of event told", event.get_ref()),
                        )
                        .expected(crate::schema::NOTIFIED.join(", ")),
                );
                return None;
            }
            events.push(event.get_ref().clone());
        }
        if raw.events.is_none() {
            events = crate::schema::NOTIFIED
                .iter()
                .map(|e| e.to_string())
                .collect();
        }
        Some(NotifyConfig {
            webhook: webhook.clone(),
            events,
        })
    }

    /// A check's weight in `[checks]`: whether it is `"error"` (else `"warning"`).
    fn check_weight(&mut self, source: &SourceText, check: &str, weight: &Spanned<String>) -> bool {
        match weight.get_ref().as_str() {
            "error" => true,
            "warning" => false,
            other => {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            weight.span(),
                            format!("[checks] {check} is `{other}`"),
                        )
                        .expected("\"warning\" (the default) or \"error\""),
                );
                false
            }
        }
    }

    /// `[pseudo]`: language tags none of the project's languages has, each once; an
    /// expansion from 0 to [`PseudoConfig::MAX_EXPANSION`].
    fn check_pseudo(
        &mut self,
        source: &SourceText,
        raw: &RawPseudo,
        languages: &[String],
    ) -> PseudoConfig {
        let mut pseudo = PseudoConfig::default();
        for language in &raw.languages {
            let name = language.get_ref();
            let problem = if !is_language_tag(name) {
                Some(format!("[pseudo]: `{name}` is not a language tag"))
            } else if languages.contains(name) {
                Some(format!(
                    "[pseudo]: `{name}` is one of the project's languages: a pseudo language is made from the source texts, never translated; give it a tag of its own (qps, en-XA)"
                ))
            } else if pseudo.languages.contains(name) {
                Some(format!("[pseudo]: `{name}` is given twice"))
            } else {
                None
            };
            match problem {
                Some(problem) => {
                    self.error(source.error(Code::InvalidName, language.span(), problem))
                }
                None => pseudo.languages.push(name.clone()),
            }
        }
        if let Some(expansion) = &raw.expansion {
            let ratio = *expansion.get_ref();
            if (0.0..=PseudoConfig::MAX_EXPANSION).contains(&ratio) {
                pseudo.expansion = ratio;
            } else {
                self.error(
                    source
                        .error(
                            Code::InvalidOption,
                            expansion.span(),
                            format!("[pseudo]: expansion {ratio} is not a growth a text can take"),
                        )
                        .expected(format!(
                            "a ratio from 0 to {} (0.4: 40% longer)",
                            PseudoConfig::MAX_EXPANSION
                        )),
                );
            }
        }
        pseudo
    }

    /// `[unread]`: each entry a file or `file#sheet` as `source` takes them.
    fn check_unread(&mut self, source: &SourceText, raw: &RawUnread) -> Unread {
        let mut entry = |text: &str, span: std::ops::Range<usize>| {
            match super::tables::parse_sheet_source(text) {
                Ok(parsed) => Some(parsed),
                Err(problem) => {
                    self.error(source.error(
                        Code::InvalidOption,
                        span,
                        format!("[unread]: {problem}"),
                    ));
                    None
                }
            }
        };
        let mut unread = Unread::default();
        for (list, into) in [
            (&raw.definitions, &mut unread.definitions),
            (&raw.notes, &mut unread.notes),
        ] {
            into.extend(list.iter().filter_map(|s| entry(s.get_ref(), s.span())));
        }
        for (name, why) in &raw.other {
            if let Some(parsed) = entry(name, why.span()) {
                unread.other.push((parsed, why.get_ref().clone()));
            }
        }
        unread
    }

    /// `[delivery] trusted_keys`: each a minisign public key's line (`RWQ…`).
    fn check_trusted_keys(&mut self, source: &SourceText, raw: &RawDelivery) -> Vec<String> {
        let mut keys = Vec::new();
        for key in &raw.trusted_keys {
            match masterctl_runtime::signature::TrustedKey::parse(key.get_ref()) {
                Ok(_) => keys.push(key.get_ref().trim().to_string()),
                Err(_) => self.error(
                    source
                        .error(
                            Code::InvalidName,
                            key.span(),
                            format!("`{}` is not a minisign public key", key.get_ref()),
                        )
                        .expected("the key line of a .pub file (`masterctl key new`), RWQ…"),
                ),
            }
        }
        keys
    }

    /// `[publish]`: a store URL of a kind delivery speaks, and an endpoint only where
    /// one means something (an S3 store).
    fn check_publish(&mut self, source: &SourceText, raw: &RawPublish) -> Option<PublishConfig> {
        let store = raw.store.get_ref();
        let scheme = store.split_once("://").map(|(scheme, _)| scheme);
        if !matches!(scheme, Some("s3" | "file" | "http" | "https")) {
            self.error(
                source
                    .error(
                        Code::InvalidName,
                        raw.store.span(),
                        format!("`{store}` is not a store the builds can be published to"),
                    )
                    .expected("s3://bucket/prefix, file:///path or https://host/path"),
            );
            return None;
        }
        if let Some(endpoint) = &raw.endpoint
            && scheme != Some("s3")
        {
            self.error(source.error(
                Code::InvalidReference,
                endpoint.span(),
                "an endpoint is for an s3:// store".to_string(),
            ));
            return None;
        }
        Some(PublishConfig {
            store: store.clone(),
            endpoint: raw.endpoint.as_ref().map(|e| e.get_ref().clone()),
        })
    }

    /// The source language and the project's languages (the source language alone when
    /// none are listed): tags, the source among them.
    fn check_languages(&mut self, source: &SourceText, raw: &RawConfig) -> (String, Vec<String>) {
        let source_language = raw.source_language.get_ref().clone();
        let mut languages: Vec<String> =
            raw.languages.iter().map(|l| l.get_ref().clone()).collect();
        for language in raw.languages.iter().chain([&raw.source_language]) {
            if !is_language_tag(language.get_ref()) {
                self.error(
                    source
                        .error(
                            Code::InvalidName,
                            language.span(),
                            format!("`{}` is not a language tag", language.get_ref()),
                        )
                        .expected("a tag like ja, en or zh-Hant"),
                );
            }
        }
        if languages.is_empty() {
            languages.push(source_language.clone());
        } else if !languages.contains(&source_language) {
            self.error(source.error(
                Code::InvalidReference,
                raw.source_language.span(),
                format!("source_language `{source_language}` is not in `languages`"),
            ));
        }
        (source_language, languages)
    }

    /// One region: its name, branch (not another region's: `branches` holds those seen),
    /// upstream, what it owns and its languages.
    fn check_region(
        &mut self,
        source: &SourceText,
        raw: &RawConfig,
        languages: &[String],
        branches: &mut HashMap<String, String>,
        (name, spanned): (&str, &Spanned<RawRegion>),
    ) -> RegionConfig {
        let region = spanned.get_ref();
        if !is_identifier(name) {
            self.error(identifier_error(
                source,
                "the region name",
                &Spanned::new(spanned.span(), name.to_string()),
            ));
        }
        let branch = region.branch.get_ref();
        if !is_branch_name(branch) {
            self.error(
                source
                    .error(
                        Code::InvalidName,
                        region.branch.span(),
                        format!("`{branch}` is not a usable branch name"),
                    )
                    .expected("a git branch name like masters/jp"),
            );
        } else if let Some(other) = branches.insert(branch.clone(), name.to_string()) {
            self.error(source.error(
                Code::DuplicateName,
                region.branch.span(),
                format!("regions `{other}` and `{name}` share branch `{branch}`"),
            ));
        }
        if let Some(upstream) = &region.upstream
            && !raw.regions.contains_key(upstream.get_ref())
        {
            self.error(source.error(
                Code::InvalidReference,
                upstream.span(),
                format!(
                    "region `{name}` follows `{}`, which is not a region",
                    upstream.get_ref()
                ),
            ));
        }
        for owned in &region.owns {
            if let Some(problem) = self.owned_problem(owned.get_ref()) {
                self.error(
                    source
                        .error(
                            Code::InvalidReference,
                            owned.span(),
                            format!("region `{name}` owns `{}`: {problem}", owned.get_ref()),
                        )
                        .found(owned.get_ref().clone()),
                );
            }
        }
        for language in &region.languages {
            if !languages.contains(language.get_ref()) {
                self.error(source.error(
                    Code::InvalidReference,
                    language.span(),
                    format!(
                        "region `{name}` uses language `{}`, which is not in `languages`",
                        language.get_ref()
                    ),
                ));
            }
        }
        RegionConfig {
            branch: branch.clone(),
            upstream: region.upstream.as_ref().map(|u| u.get_ref().clone()),
            owns: region.owns.iter().map(|o| o.get_ref().clone()).collect(),
            languages: region
                .languages
                .iter()
                .map(|l| l.get_ref().clone())
                .collect(),
        }
    }

    pub(super) fn owned_problem(&self, owned: &str) -> Option<String> {
        let (table, column) = match owned.split_once('.') {
            Some((t, c)) => (t, Some(c)),
            None => (owned, None),
        };
        let Some(schema) = self.tables.iter().find(|t| t.name == table) else {
            // A table declared too broken to build has its own errors.
            return (!self.broken_tables.contains(table))
                .then(|| format!("there is no table `{table}`"));
        };
        match column {
            Some(column) if schema.field(column).is_none() => {
                Some(format!("table `{table}` has no field `{column}`"))
            }
            Some(column) if schema.primary_key_names().contains(&column) => {
                Some("a primary key column cannot be owned; own the whole table".into())
            }
            _ => None,
        }
    }

    /// Every region on a cycle of upstreams, named with its cycle. Each region follows at
    /// most one other, so one walk per region, never revisiting one already settled, is
    /// linear in the number of regions.
    pub(super) fn check_upstream_cycles(
        &mut self,
        source: &SourceText,
        regions: &BTreeMap<String, Spanned<RawRegion>>,
    ) {
        let upstream_of = |name: &str| {
            regions
                .get(name)
                .and_then(|r| r.get_ref().upstream.as_ref())
                .map(|u| u.get_ref().as_str())
                .filter(|u| regions.contains_key(*u))
        };
        let mut settled: HashSet<&str> = HashSet::new();
        for start in regions.keys() {
            let mut path: Vec<&str> = Vec::new();
            let mut position: HashMap<&str, usize> = HashMap::new();
            let mut current = Some(start.as_str());
            while let Some(name) = current {
                if settled.contains(name) {
                    break;
                }
                if let Some(&first) = position.get(name) {
                    let cycle = &path[first..];
                    for (i, member) in cycle.iter().enumerate() {
                        // The cycle from this region on, at most eight steps of it.
                        let steps = cycle[i..].iter().chain(&cycle[..i]);
                        let mut shown: Vec<&str> = steps.take(8).copied().collect();
                        if cycle.len() > 8 {
                            shown.push("…");
                        }
                        self.error(source.error(
                            Code::InvalidReference,
                            regions[*member].span(),
                            format!(
                                "region `{member}` follows itself through upstreams ({} regions): {} → {member}",
                                cycle.len(),
                                shown.join(" → ")
                            ),
                        ));
                    }
                    break;
                }
                position.insert(name, path.len());
                path.push(name);
                current = upstream_of(name);
            }
            settled.extend(path);
        }
    }
}
