//! On/off switches in the environment, for benchmarks and diagnostics
//! (`WARPSW_HAND_OVER`, `WARPSW_TIMELINE`, `WARPSW_EVENT_TRACKING`): one
//! spelling for all of them.

/// The switch `name`: `on` or `off`; unset or empty is `default`; any other
/// value is an error naming the variable and what it takes.
pub fn on_or_off(name: &str, default: bool) -> std::result::Result<bool, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(value) => match value.as_str() {
            "" => Ok(default),
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err(format!("{name}={value}: expected on or off")),
        },
    }
}
