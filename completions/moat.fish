# fish completion for moat. 'make install' puts it where fish looks
# ($(PREFIX)/share/fish/vendor_completions.d/moat.fish). The candidates come
# from 'moat __complete', which reads moat's own command table (options,
# their values, shell names, grants), so this stays thin.

function __moat_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    for line in ($words[1] __complete -- $words $cur 2>/dev/null)
        switch $line
            case :files
                __fish_complete_path $cur
            case :dirs
                __fish_complete_directories $cur
            case :commands
                __fish_complete_command
            case '*'
                printf '%s\n' $line
        end
    end
end

complete -c moat -f -a '(__moat_complete)'
