//! Work run on several threads at once by one job (sweepers side by side,
//! job runners on the computer's thread pool).

use crate::error::Error;

/// Run `work` on `n` threads at once (at least one) and gather what each
/// gave; a thread that panicked gives an error naming `who`.
pub fn side_by_side<T: Send>(
    n: usize,
    who: &str,
    work: impl Fn() -> Result<T, Error> + Sync,
) -> Vec<Result<T, Error>> {
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..n.max(1)).map(|_| scope.spawn(&work)).collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .unwrap_or_else(|_| Err(Error::internal(format!("{who} panicked"))))
            })
            .collect()
    })
}
