//! Modules a library needs only for some of its features, and did not declare: it says the
//! feature is unsupported where the module is missing. matplotlib before 3.3 (which made
//! Pillow a requirement) writes JPEG and TIFF through PIL, and without it refuses the format
//! (`Format 'tif' is not supported (supported formats: eps, pdf, ...)`): a figure its author
//! saved as `.tif` fails for want of Pillow, not for a change of behaviour.

/// (library, formats it writes through the module, the module).
const WRITERS: &[(&str, &[&str], &str)] = &[("matplotlib", &["jpg", "jpeg", "tif", "tiff"], "PIL")];

/// The module `library` needs to write `format`, when it writes it through another library.
pub(crate) fn writer(library: &str, format: &str) -> Option<&'static str> {
    let format = format.to_ascii_lowercase();
    WRITERS
        .iter()
        .find(|(lib, formats, _)| *lib == library && formats.contains(&format.as_str()))
        .map(|(_, _, module)| *module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matplotlib_writes_jpeg_and_tiff_through_pil() {
        assert_eq!(writer("matplotlib", "tif"), Some("PIL"));
        assert_eq!(writer("matplotlib", "JPG"), Some("PIL"));
        assert_eq!(writer("matplotlib", "png"), None);
        assert_eq!(writer("seaborn", "tif"), None);
    }
}
