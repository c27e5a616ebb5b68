//! `system.disk`: writing raw onto block devices and formatting them.

use crate::Block;
use crate::shell::Word;

/// `dd of=<block device>`, `mkfs` and the other formatters.
#[must_use]
pub fn judge(name: &str, args: &[&str]) -> Option<Block> {
    if name == "dd" {
        let target = args
            .iter()
            .filter_map(|a| a.strip_prefix("of="))
            .find(|t| is_block_device(t))?;
        return Some(Block {
            rule: "system.disk:dd-device",
            what: format!("`dd of={target}` overwrites a disk device, and every file system on it"),
            instead: "write to an image file (`dd of=disk.img`) and let the user copy it onto the device",
        });
    }
    let formatter = name.starts_with("mkfs")
        || matches!(
            name,
            "mke2fs" | "mkswap" | "wipefs" | "mkntfs" | "mkdosfs" | "sgdisk" | "blkdiscard"
        );
    formatter.then(|| Block {
        rule: "system.disk:mkfs",
        what: format!("`{name}` formats or wipes a disk device: what is on it is gone"),
        instead: "ask the user to run it; for a scratch file system, format an image file \
                  (`truncate -s 1G disk.img && mkfs.ext4 disk.img`) on a path you created",
    })
}

/// Output redirected onto a block device (`> /dev/sda`).
#[must_use]
pub fn redirect_to_device(target: &Word) -> Option<Block> {
    is_block_device(&target.text).then(|| Block {
        rule: "system.disk:redirect-device",
        what: format!(
            "output redirected onto `{}` overwrites a disk device",
            target.text
        ),
        instead: "write to a regular file, and let the user copy it onto the device",
    })
}

/// `/dev/sda`, `/dev/nvme0n1`, `/dev/mmcblk0`, `/dev/disk2`, `/dev/mapper/...` (not `/dev/null`,
/// `/dev/zero`, `/dev/std*`, `/dev/tty*`, `/dev/fd/*`).
fn is_block_device(path: &str) -> bool {
    let Some(dev) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "dm-", "loop", "rdisk",
    ]
    .iter()
    .any(|prefix| dev.starts_with(prefix))
}
