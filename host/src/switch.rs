//! On/off switches in the environment, for benchmarks and diagnostics
//! (`WARPSW_HAND_OVER`, `WARPSW_SASS`, `WARPSW_EVENT_TRACKING`, and
//! `WARPSW_TIMELINE`'s on and off): one spelling for all of them, and a
//! [`Switch`] that reads its variable once.

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

/// An on/off switch in the environment, read once: [`on_or_off`] of its
/// variable the first time [`Switch::on`] asks.
pub struct Switch {
    name: &'static str,
    default: bool,
    value: std::sync::OnceLock<std::result::Result<bool, String>>,
}

impl Switch {
    /// The switch `name`, `default` where unset or empty.
    pub const fn new(name: &'static str, default: bool) -> Switch {
        Switch {
            name,
            default,
            value: std::sync::OnceLock::new(),
        }
    }

    /// Whether the switch is on; an error (an invalid argument) if its
    /// variable is neither `on` nor `off`.
    pub fn on(&self) -> crate::error::Result<bool> {
        self.value
            .get_or_init(|| on_or_off(self.name, self.default))
            .clone()
            .map_err(crate::error::Error::InvalidArgument)
    }
}
