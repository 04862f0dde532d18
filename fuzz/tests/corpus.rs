//! Every input of the fuzzing corpus, and every input that once made a parser panic,
//! hang or allocate without limit, replayed through the same entry points.

use std::path::Path;

#[test]
fn every_corpus_and_regression_input_is_handled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    for (name, target) in masterctl_fuzz::TARGETS {
        let mut inputs = 0;
        for folder in ["corpus", "regressions"] {
            let dir = root.join(folder).join(name);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
            files.sort();
            for path in files {
                let data = std::fs::read(&path).unwrap();
                eprintln!("{}", path.display());
                target(&data);
                inputs += 1;
            }
        }
        assert!(inputs > 0, "no corpus for target `{name}`");
        replayed += inputs;
    }
    assert!(replayed >= masterctl_fuzz::TARGETS.len());
}
